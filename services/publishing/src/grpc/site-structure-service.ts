import type { SiteStructureServiceService } from "@imprint/proto/publishing/v1/site_structure";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getSiteStructure } from "../use-cases/structure/get-site-structure.js";
import { sortSiteStructure } from "../use-cases/structure/sort-site-structure.js";
import { externalLinkToProto, sectionGroupToProto, sectionToProto, siteSpaceToProto, structureToProto } from "./mappers.js";

export const SITE_STRUCTURE_SERVICE_NAME = "imprint.publishing.v1.SiteStructureService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteStructureServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteStructureServiceService> {
  return {
    getSiteStructure: async (request) => {
      const structure = structureToProto(
        await getSiteStructure(
          em(),
          { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareKey: request.shareKey },
          deps,
        ),
      );
      return { ...structure, sections: structure.items.flatMap((item) => (item.section ? [item.section] : [])) };
    },

    sortSiteStructure: async (request) => {
      const moved = await sortSiteStructure(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          item: request.item,
          before: request.before,
          after: request.after,
        },
        deps,
      );
      if (moved.type === "site-section-group") return { siteSectionGroup: sectionGroupToProto(moved.group) };
      if (moved.type === "site-external-link") return { siteExternalLink: externalLinkToProto(moved.link) };
      return moved.type === "site-section" ? { siteSection: sectionToProto(moved.section) } : { siteSpace: siteSpaceToProto(moved.siteSpace) };
    },
  };
}
