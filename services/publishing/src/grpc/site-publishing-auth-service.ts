import type { SitePublishingAuthServiceService } from "@imprint/proto/publishing/v1/site_publishing_auth";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getSitePublishingAuth } from "../use-cases/publishing-auth/get-site-publishing-auth.js";
import { regenerateSitePublishingAuth } from "../use-cases/publishing-auth/regenerate-site-publishing-auth.js";
import { updateSitePublishingAuth } from "../use-cases/publishing-auth/update-site-publishing-auth.js";
import { publishingAuthToProto } from "./mappers.js";

export const SITE_PUBLISHING_AUTH_SERVICE_NAME = "imprint.publishing.v1.SitePublishingAuthService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function sitePublishingAuthServiceImplementation(
  em: () => EntityManager,
  deps: UseCaseDeps,
): AsyncImplementation<typeof SitePublishingAuthServiceService> {
  return {
    getSitePublishingAuth: async (request) => {
      const auth = await getSitePublishingAuth(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { auth: publishingAuthToProto(auth) };
    },

    updateSitePublishingAuth: async (request) => {
      const auth = await updateSitePublishingAuth(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          backend: request.backend,
          updateMask: request.updateMask,
          fallbackUrl: request.fallbackUrl,
          logoutUrl: request.logoutUrl,
        },
        deps,
      );
      return { auth: publishingAuthToProto(auth) };
    },

    regenerateSitePublishingAuth: async (request) => {
      const auth = await regenerateSitePublishingAuth(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { auth: publishingAuthToProto(auth) };
    },
  };
}
