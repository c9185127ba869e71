import { z } from "zod";
import { toRestPublishingAuth } from "../mappers/site.js";
import { defineRoute, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
/** updateSitePublishingAuthById: `backend` required; a URL null unsets it. */
export const updatePublishingAuthBody = z.object({
  backend: z.string(),
  fallbackURL: z.string().nullable().optional(),
  logoutURL: z.string().nullable().optional(),
});

/** REST body → UpdateSitePublishingAuth fields: the backend, and the URLs the client sent in the update mask (null unsets). */
export function toUpdateSitePublishingAuthFields({ backend, ...urls }: z.output<typeof updatePublishingAuthBody>) {
  return {
    backend,
    ...toMaskedUpdate(
      urls,
      { fallbackUrl: "", logoutUrl: "" },
      {
        fallbackURL: ["fallback_url", (fallbackUrl) => ({ fallbackUrl: fallbackUrl ?? "" })],
        logoutURL: ["logout_url", (logoutUrl) => ({ logoutUrl: logoutUrl ?? "" })],
      },
    ),
  };
}

export function sitePublishingAuthRoutes({ upstreams }: RouteDeps): Route[] {
  const publishingAuth = upstreams.publishing.publishingAuth;
  return [
    // getSitePublishingAuthById: organization admins only (it holds the signing key).
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await publishingAuth.getSitePublishingAuth({ caller: principal.caller, ...params });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),

    // updateSitePublishingAuthById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
      params: siteParams,
      body: updatePublishingAuthBody,
      handler: async ({ params, body, principal }) => {
        const response = await publishingAuth.updateSitePublishingAuth({
          caller: principal.caller,
          ...params,
          ...toUpdateSitePublishingAuthFields(body),
        });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),

    // regenerateSitePublishingAuthById: a new signing key; tokens signed with the old one stop counting.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await publishingAuth.regenerateSitePublishingAuth({ caller: principal.caller, ...params });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),
  ];
}
