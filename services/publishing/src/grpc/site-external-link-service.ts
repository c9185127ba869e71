import type { SiteExternalLinkServiceService } from "@imprint/proto/publishing/v1/site_external_links";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { addSiteExternalLink } from "../use-cases/external-links/add-site-external-link.js";
import { deleteSiteExternalLink } from "../use-cases/external-links/delete-site-external-link.js";
import { updateSiteExternalLink } from "../use-cases/external-links/update-site-external-link.js";
import { externalLinkToProto } from "./mappers.js";

export const SITE_EXTERNAL_LINK_SERVICE_NAME = "imprint.publishing.v1.SiteExternalLinkService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteExternalLinkServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteExternalLinkServiceService> {
  return {
    addSiteExternalLink: async (request) => {
      const view = await addSiteExternalLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          title: request.title,
          url: request.url,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          sectionGroupId: request.sectionGroupId,
          draft: request.draft,
        },
        deps,
      );
      return { link: externalLinkToProto(view) };
    },

    updateSiteExternalLink: async (request) => {
      const view = await updateSiteExternalLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          linkId: request.linkId,
          updateMask: request.updateMask,
          title: request.title,
          url: request.url,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          sectionGroupId: request.sectionGroupId,
          draft: request.draft,
        },
        deps,
      );
      return { link: externalLinkToProto(view) };
    },

    deleteSiteExternalLink: async (request) => {
      const { removed } = await deleteSiteExternalLink(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, linkId: request.linkId },
        deps,
      );
      return { removed };
    },
  };
}
