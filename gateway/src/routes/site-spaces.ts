import { z } from "zod";
import { siteLocation, toRestSiteSpace } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
export const siteSpaceParams = siteParams.extend({ siteSpaceId: pathId() });
const listSiteSpacesQuery = z.object({ ...pageQueryShape, shareKey: queryParam.string(128).optional(), default: queryParam.boolean().optional() });

/** addSpaceToSite: an existing space (`null`, a new space, is not supported); custom home pages are not either. */
export const addSiteSpaceBody = z.object({
  spaceId: pathId(),
  sectionId: pathId().optional(),
  draft: z.boolean().optional(),
  pageId: z.null({ error: "custom home pages are not supported yet" }).optional(),
});

/** updateSiteSpaceById: `condition` null removes it. */
export const updateSiteSpaceBody = z.object({
  path: z.string().optional(),
  condition: z.string().nullable().optional(),
  spaceId: pathId().optional(),
  draft: z.boolean().optional(),
  hidden: z.literal(false, { error: "hidden site-spaces are not supported yet" }).optional(),
  pageId: z.null({ error: "custom home pages are not supported yet" }).optional(),
});

/**
 * REST body → UpdateSiteSpace fields plus an update mask naming exactly the fields the client sent;
 * null removes the condition. `hidden: false` changes nothing (and `pageId` is refused).
 */
export function toUpdateSiteSpaceFields({ hidden: _neverHidden, pageId: _refused, ...body }: z.output<typeof updateSiteSpaceBody>) {
  return toMaskedUpdate(
    body,
    { path: "", condition: "", spaceId: "", draft: false },
    {
      path: ["path", (path) => ({ path })],
      condition: ["condition", (condition) => ({ condition: condition ?? "" })],
      spaceId: ["space_id", (spaceId) => ({ spaceId })],
      draft: ["draft", (draft) => ({ draft })],
    },
  );
}

const siteSpacePointer = z.object({ type: z.literal("site-space"), siteSpace: pathId() });

/** moveSiteSpace: no position moves it to the end. */
export const moveSiteSpaceBody = z
  .object({ position: z.object({ before: siteSpacePointer.optional(), after: siteSpacePointer.optional() }).optional() })
  .optional();

/** duplicateSiteSpace: `draft` for the copy (and its new section, if any). */
export const duplicateSiteSpaceBody = z.object({ draft: z.boolean().optional() }).optional();

export function siteSpaceRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const siteSpaces = upstreams.publishing.siteSpaces;
  return [
    // listSiteSpaces: with shareKey (an active share link's), published URLs go through that link.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
      params: siteParams,
      query: listSiteSpacesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await siteSpaces.listSiteSpaces({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          default: query.default,
          shareKey: query.shareKey ?? "",
        });
        return ok(
          toPagedList(
            response.siteSpaces.map((siteSpace) => toRestSiteSpace(siteSpace, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // addSpaceToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
      params: siteParams,
      body: addSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await siteSpaces.addSiteSpace({
          caller: principal.caller,
          ...params,
          spaceId: body.spaceId,
          sectionId: body.sectionId ?? "",
          draft: body.draft ?? false,
        });
        const siteSpace = toRestSiteSpace(response.siteSpace, urls);
        return created(siteSpace, `${siteLocation(urls, params.organizationId, params.siteId)}/site-spaces/${encodeURIComponent(siteSpace.id)}`);
      },
    }),

    // updateSiteSpaceById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
      params: siteSpaceParams,
      body: updateSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await siteSpaces.updateSiteSpace({
          caller: principal.caller,
          ...params,
          ...toUpdateSiteSpaceFields(body),
        });
        return ok(toRestSiteSpace(response.siteSpace, urls));
      },
    }),

    // deleteSiteSpaceById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
      params: siteSpaceParams,
      handler: async ({ params, principal }) => {
        await siteSpaces.deleteSiteSpace({ caller: principal.caller, ...params });
        return noContent();
      },
    }),

    // duplicateSiteSpace
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/duplicate",
      params: siteSpaceParams,
      body: duplicateSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await siteSpaces.duplicateSiteSpace({ caller: principal.caller, ...params, draft: body?.draft ?? false });
        const siteSpace = toRestSiteSpace(response.siteSpace, urls);
        return created(siteSpace, `${siteLocation(urls, params.organizationId, params.siteId)}/site-spaces/${encodeURIComponent(siteSpace.id)}`);
      },
    }),

    // moveSiteSpace (deprecated in GitBook, still served)
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move",
      params: siteSpaceParams,
      body: moveSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await siteSpaces.moveSiteSpace({
          caller: principal.caller,
          ...params,
          beforeSiteSpaceId: body?.position?.before?.siteSpace ?? "",
          afterSiteSpaceId: body?.position?.after?.siteSpace ?? "",
        });
        return ok(toRestSiteSpace(response.siteSpace, urls));
      },
    }),
  ];
}
