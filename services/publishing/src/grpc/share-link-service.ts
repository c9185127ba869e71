import type { ShareLinkServiceService } from "@imprint/proto/publishing/v1/share_links";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { createShareLink } from "../use-cases/share-links/create-share-link.js";
import { deleteShareLink } from "../use-cases/share-links/delete-share-link.js";
import { listShareLinks } from "../use-cases/share-links/list-share-links.js";
import { updateShareLink } from "../use-cases/share-links/update-share-link.js";
import { shareLinkToProto } from "./mappers.js";

export const SHARE_LINK_SERVICE_NAME = "imprint.publishing.v1.ShareLinkService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function shareLinkServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof ShareLinkServiceService> {
  return {
    listShareLinks: async (request) => {
      const page = await listShareLinks(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, search: request.search, page: pageRequest(request.page) },
        deps,
      );
      return { shareLinks: page.items.map(shareLinkToProto), page: pageInfo(page) };
    },

    createShareLink: async (request) => {
      const view = await createShareLink(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, name: request.name },
        deps,
      );
      return { shareLink: shareLinkToProto(view) };
    },

    updateShareLink: async (request) => {
      const view = await updateShareLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          shareLinkId: request.shareLinkId,
          updateMask: request.updateMask,
          name: request.name,
          active: request.active,
        },
        deps,
      );
      return { shareLink: shareLinkToProto(view) };
    },

    deleteShareLink: async (request) => {
      await deleteShareLink(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareLinkId: request.shareLinkId },
        deps,
      );
      return {};
    },
  };
}
