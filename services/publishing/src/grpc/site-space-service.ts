import type { SiteSpaceServiceService } from "@imprint/proto/publishing/v1/site_spaces";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { addSiteSpace } from "../use-cases/site-spaces/add-site-space.js";
import { deleteSiteSpace } from "../use-cases/site-spaces/delete-site-space.js";
import { duplicateSiteSpace } from "../use-cases/site-spaces/duplicate-site-space.js";
import { listSiteSpaces } from "../use-cases/site-spaces/list-site-spaces.js";
import { moveSiteSpace } from "../use-cases/site-spaces/move-site-space.js";
import { updateSiteSpace } from "../use-cases/site-spaces/update-site-space.js";
import { siteSpaceToProto } from "./mappers.js";

export const SITE_SPACE_SERVICE_NAME = "imprint.publishing.v1.SiteSpaceService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteSpaceServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteSpaceServiceService> {
  return {
    listSiteSpaces: async (request) => {
      const page = await listSiteSpaces(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          isDefault: request.default,
          shareKey: request.shareKey,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { siteSpaces: page.items.map(siteSpaceToProto), page: pageInfo(page) };
    },

    addSiteSpace: async (request) => {
      const view = await addSiteSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          spaceId: request.spaceId,
          sectionId: request.sectionId,
          draft: request.draft,
        },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    updateSiteSpace: async (request) => {
      const view = await updateSiteSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteSpaceId: request.siteSpaceId,
          updateMask: request.updateMask,
          path: request.path,
          condition: request.condition,
          spaceId: request.spaceId,
          draft: request.draft,
        },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    deleteSiteSpace: async (request) => {
      await deleteSiteSpace(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId },
        deps,
      );
      return {};
    },

    duplicateSiteSpace: async (request) => {
      const view = await duplicateSiteSpace(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId, draft: request.draft },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    moveSiteSpace: async (request) => {
      const view = await moveSiteSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteSpaceId: request.siteSpaceId,
          before: request.beforeSiteSpaceId,
          after: request.afterSiteSpaceId,
        },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },
  };
}
