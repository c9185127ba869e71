import { z } from "zod";
import { siteLocation, toRestShareLink } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const shareLinkParams = siteParams.extend({ shareLinkId: pathId() });
const listShareLinksQuery = z.object({ ...pageQueryShape, search: queryParam.string(128).optional() });
export const createShareLinkBody = z.object({ name: z.string() });
export const updateShareLinkBody = z
  .object({ active: z.boolean().optional(), name: z.string().optional() })
  .refine((body) => body.active !== undefined || body.name !== undefined, { error: "must contain active or name" });

/** REST body → UpdateShareLink fields plus an update mask naming exactly the fields the client sent (at least one). */
export function toUpdateShareLinkFields(body: z.output<typeof updateShareLinkBody>) {
  return toMaskedUpdate(body, { name: "", active: false }, { active: ["active", (active) => ({ active })], name: ["name", (name) => ({ name })] });
}

export function siteShareLinkRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const shareLinks = upstreams.publishing.shareLinks;
  return [
    // listSiteShareLinks
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links",
      params: siteParams,
      query: listShareLinksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await shareLinks.listShareLinks({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          search: query.search ?? "",
        });
        return ok(
          toPagedList(
            response.shareLinks.map((link) => toRestShareLink(link, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createSiteShareLink
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links",
      params: siteParams,
      body: createShareLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await shareLinks.createShareLink({ caller: principal.caller, ...params, name: body.name });
        const link = toRestShareLink(response.shareLink, urls);
        return created(link, `${siteLocation(urls, params.organizationId, params.siteId)}/share-links/${encodeURIComponent(link.id)}`);
      },
    }),

    // updateSiteShareLinkById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
      params: shareLinkParams,
      body: updateShareLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await shareLinks.updateShareLink({ caller: principal.caller, ...params, ...toUpdateShareLinkFields(body) });
        return ok(toRestShareLink(response.shareLink, urls));
      },
    }),

    // deleteSiteShareLinkById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
      params: shareLinkParams,
      handler: async ({ params, principal }) => {
        await shareLinks.deleteShareLink({ caller: principal.caller, ...params });
        return noContent();
      },
    }),
  ];
}
