import type { SiteRedirectDestination } from "@imprint/proto/publishing/v1/site_redirects";
import { z } from "zod";
import { siteLocation, toRestResolvedRedirect, toRestSiteRedirect } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Sources (GitBook's pattern, 512 characters), URLs, destinations' references and the bulk
// bounds (1 to 500 items) are the publishing service's; the gateway checks shapes only.
const siteRedirectParams = siteParams.extend({ siteRedirectId: pathId() });

/** GitBook's destinations (site-section, site-space, site-page, external), plus `path` (a page by its space and path) in requests. */
const destinationBody = z.object({
  kind: z.enum(["site-section", "site-space", "site-page", "external", "path"]),
  siteSectionId: pathId().optional(),
  siteSpaceId: pathId().optional(),
  pageId: pathId().optional(),
  url: z.string().optional(),
  spaceId: pathId().optional(),
  path: z.string().optional(),
});

const listSiteRedirectsQuery = z.object({
  ...pageQueryShape,
  search: queryParam.string(512).optional(),
  draft: queryParam.boolean().optional(),
  orderBy: z.enum(["createdAt", "updatedAt", "source"]).optional(),
});
const redirectBySourceQuery = z.object({ source: queryParam.string(1024), shareKey: queryParam.string(128).optional() });

export const createSiteRedirectBody = z.object({
  source: z.string(),
  captureWildcard: z.boolean().optional(),
  draft: z.boolean().optional(),
  permanent: z.boolean().optional(),
  destination: destinationBody,
});

export const updateSiteRedirectBody = z.object({
  source: z.string().optional(),
  captureWildcard: z.boolean().optional(),
  draft: z.boolean().optional(),
  permanent: z.boolean().optional(),
  destination: destinationBody.optional(),
});

export const bulkUpsertSiteRedirectsBody = z.object({
  redirects: z.array(
    z
      .object({
        source: z.string(),
        intent: z.enum(["live", "draft", "publish"]).optional(),
        captureWildcard: z.boolean().optional(),
        permanent: z.boolean().optional(),
        /** null deletes the source's redirect; absent is only for `publish`. */
        destination: destinationBody.nullable().optional(),
      })
      .refine((item) => item.intent === "publish" || item.destination !== undefined, {
        error: "destination: is required (null deletes the redirect) unless intent is publish",
      }),
  ),
});

function toDestination(destination: z.output<typeof destinationBody>): SiteRedirectDestination {
  return {
    kind: destination.kind,
    siteSectionId: destination.siteSectionId ?? "",
    siteSpaceId: destination.siteSpaceId ?? "",
    pageId: destination.pageId ?? "",
    url: destination.url ?? "",
    spaceId: destination.spaceId ?? "",
    path: destination.path ?? "",
  };
}

/** REST body → UpdateSiteRedirect fields plus an update mask naming exactly the fields the client sent (none changes nothing). */
export function toUpdateSiteRedirectFields(body: z.output<typeof updateSiteRedirectBody>) {
  return toMaskedUpdate(
    body,
    { source: "", captureWildcard: false, draft: false, permanent: false, destination: undefined as SiteRedirectDestination | undefined },
    {
      source: ["source", (source) => ({ source })],
      captureWildcard: ["capture_wildcard", (captureWildcard) => ({ captureWildcard })],
      draft: ["draft", (draft) => ({ draft })],
      permanent: ["permanent", (permanent) => ({ permanent })],
      destination: ["destination", (destination) => ({ destination: toDestination(destination) })],
    },
  );
}

export function siteRedirectRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const redirects = upstreams.publishing.siteRedirects;
  const redirectsPath = "/v1/orgs/:organizationId/sites/:siteId/redirects";
  return [
    // listSiteRedirects: live ones unless draft=true.
    defineRoute({
      method: "GET",
      path: redirectsPath,
      params: siteParams,
      query: listSiteRedirectsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await redirects.listSiteRedirects({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          search: query.search ?? "",
          draft: query.draft ?? false,
          orderBy: query.orderBy ?? "",
        });
        return ok(toPagedList(response.redirects.map(toRestSiteRedirect), response.page, cursors));
      },
    }),

    // createSiteRedirect
    defineRoute({
      method: "POST",
      path: redirectsPath,
      params: siteParams,
      body: createSiteRedirectBody,
      handler: async ({ params, body, principal }) => {
        const response = await redirects.createSiteRedirect({
          caller: principal.caller,
          ...params,
          source: body.source,
          captureWildcard: body.captureWildcard ?? false,
          draft: body.draft ?? false,
          permanent: body.permanent ?? false,
          destination: toDestination(body.destination),
        });
        const redirect = toRestSiteRedirect(response.redirect);
        return created(redirect, `${siteLocation(urls, params.organizationId, params.siteId)}/redirects/${encodeURIComponent(redirect.id)}`);
      },
    }),

    // bulkUpsertSiteRedirects: one result per item, in order.
    defineRoute({
      method: "PUT",
      path: redirectsPath,
      params: siteParams,
      body: bulkUpsertSiteRedirectsBody,
      handler: async ({ params, body, principal }) => {
        const response = await redirects.bulkUpsertSiteRedirects({
          caller: principal.caller,
          ...params,
          redirects: body.redirects.map((item) => ({
            source: item.source,
            intent: item.intent ?? "live",
            captureWildcard: item.captureWildcard ?? false,
            permanent: item.permanent,
            destination: item.destination ? toDestination(item.destination) : undefined,
          })),
        });
        return ok({
          results: response.results.map(({ status, source, draft, id, error }) =>
            status === "error" ? { status, source, draft, error } : status === "deleted" ? { status, source, draft } : { status, source, draft, id },
          ),
        });
      },
    }),

    // updateSiteRedirectById
    defineRoute({
      method: "PATCH",
      path: `${redirectsPath}/:siteRedirectId`,
      params: siteRedirectParams,
      body: updateSiteRedirectBody,
      handler: async ({ params, body, principal }) => {
        const response = await redirects.updateSiteRedirect({ caller: principal.caller, ...params, ...toUpdateSiteRedirectFields(body) });
        return ok(toRestSiteRedirect(response.redirect));
      },
    }),

    // deleteSiteRedirectById: 205 when it was deleted, 204 when it did not exist (GitBook's).
    defineRoute({
      method: "DELETE",
      path: `${redirectsPath}/:siteRedirectId`,
      params: siteRedirectParams,
      handler: async ({ params, principal }) => {
        const { existed } = await redirects.deleteSiteRedirect({ caller: principal.caller, ...params });
        return existed ? resetContent() : noContent();
      },
    }),

    // getSiteRedirectBySource: the live redirect a path follows and its target URL; 404 when none.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/redirect",
      params: siteParams,
      query: redirectBySourceQuery,
      handler: async ({ params, query, principal }) => {
        const response = await redirects.getSiteRedirectBySource({ caller: principal.caller, ...params, source: query.source, shareKey: query.shareKey ?? "" });
        return ok(toRestResolvedRedirect(response, urls));
      },
    }),
  ];
}
