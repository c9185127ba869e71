import type { SiteSectionServiceService } from "@imprint/proto/publishing/v1/site_sections";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { addSiteSection } from "../use-cases/sections/add-site-section.js";
import { deleteSiteSection } from "../use-cases/sections/delete-site-section.js";
import { listSiteSections } from "../use-cases/sections/list-site-sections.js";
import { moveSiteSection } from "../use-cases/sections/move-site-section.js";
import { updateSiteSection } from "../use-cases/sections/update-site-section.js";
import { sectionToProto } from "./mappers.js";

export const SITE_SECTION_SERVICE_NAME = "imprint.publishing.v1.SiteSectionService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteSectionServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteSectionServiceService> {
  return {
    listSiteSections: async (request) => {
      const page = await listSiteSections(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareKey: request.shareKey, page: pageRequest(request.page) },
        deps,
      );
      return { sections: page.items.map(sectionToProto), page: pageInfo(page) };
    },

    addSiteSection: async (request) => {
      const view = await addSiteSection(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          spaceId: request.spaceId,
          title: request.title,
          icon: request.icon,
          draft: request.draft,
        },
        deps,
      );
      return { section: sectionToProto(view) };
    },

    updateSiteSection: async (request) => {
      const view = await updateSiteSection(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          sectionId: request.sectionId,
          updateMask: request.updateMask,
          title: request.title,
          path: request.path,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          defaultSiteSpaceId: request.defaultSiteSpaceId,
          draft: request.draft,
        },
        deps,
      );
      return { section: sectionToProto(view) };
    },

    deleteSiteSection: async (request) => {
      await deleteSiteSection(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, sectionId: request.sectionId },
        deps,
      );
      return {};
    },

    moveSiteSection: async (request) => {
      const view = await moveSiteSection(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          sectionId: request.sectionId,
          before: request.beforeSectionId,
          after: request.afterSectionId,
        },
        deps,
      );
      return { section: sectionToProto(view) };
    },
  };
}
