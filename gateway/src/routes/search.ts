import { z } from "zod";
import { toRestSearchPage, toRestSearchSpace } from "../mappers/search.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { SiteSearchMode, SiteSearchRestriction, type SiteSearchScope } from "@imprint/proto/publishing/v1/sites";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

/** `query` (web-search syntax, at most 512 characters per GitBook's schema) and the list parameters. */
const searchQuery = z.object({ ...pageQueryShape, query: z.string().trim().min(1).max(512) });

/** GitBook's SiteSearchScope; which site-spaces exist is the publishing service's to say. */
const siteSearchScope = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("default"),
    currentSiteSpace: pathId().optional(),
    restrictTo: z.enum(["currentSiteSpace", "otherSiteSpaces"]).optional(),
  }),
  z.object({ mode: z.literal("specific"), siteSpaceIds: z.array(pathId()).min(1) }),
  z.object({ mode: z.literal("all") }),
]);

/**
 * searchSiteContent: `query` with `scope`, or one of GitBook's deprecated forms (`siteSpaceIds`,
 * `mode: "current"` with `siteSpaceId`, `mode: "all"`); neither searches the default scope.
 */
export const searchSiteContentBody = z
  .object({
    query: z.string().trim().min(1).max(512),
    scope: siteSearchScope.optional(),
    mode: z.enum(["specific", "current", "all"]).optional(),
    siteSpaceIds: z.array(pathId()).min(1).optional(),
    siteSpaceId: pathId().optional(),
  })
  .superRefine((body, context) => {
    const legacy = body.mode !== undefined || body.siteSpaceIds !== undefined || body.siteSpaceId !== undefined;
    if (body.scope && legacy) context.addIssue({ code: "custom", path: ["scope"], message: "cannot be combined with mode, siteSpaceIds or siteSpaceId" });
    if (body.mode === "specific" && body.siteSpaceIds === undefined) context.addIssue({ code: "custom", path: ["siteSpaceIds"], message: "is required" });
    if (body.mode === "current" && body.siteSpaceId === undefined) context.addIssue({ code: "custom", path: ["siteSpaceId"], message: "is required" });
  });

/** The body's scope, its deprecated forms mapped to the scope GitBook says each means. */
export function toSiteSearchScope(body: z.output<typeof searchSiteContentBody>): SiteSearchScope {
  const scope = {
    mode: SiteSearchMode.SITE_SEARCH_MODE_DEFAULT,
    currentSiteSpaceId: "",
    restrictTo: SiteSearchRestriction.SITE_SEARCH_RESTRICTION_UNSPECIFIED,
    siteSpaceIds: [],
  };
  if (body.scope?.mode === "default") {
    const restrictTo =
      body.scope.restrictTo === "currentSiteSpace"
        ? SiteSearchRestriction.SITE_SEARCH_RESTRICTION_CURRENT_SITE_SPACE
        : body.scope.restrictTo === "otherSiteSpaces"
          ? SiteSearchRestriction.SITE_SEARCH_RESTRICTION_OTHER_SITE_SPACES
          : SiteSearchRestriction.SITE_SEARCH_RESTRICTION_UNSPECIFIED;
    return { ...scope, currentSiteSpaceId: body.scope.currentSiteSpace ?? "", restrictTo };
  }
  if (body.scope?.mode === "specific") return { ...scope, mode: SiteSearchMode.SITE_SEARCH_MODE_SPECIFIC, siteSpaceIds: body.scope.siteSpaceIds };
  if (body.scope?.mode === "all" || body.mode === "all") return { ...scope, mode: SiteSearchMode.SITE_SEARCH_MODE_ALL };
  if (body.siteSpaceIds) return { ...scope, mode: SiteSearchMode.SITE_SEARCH_MODE_SPECIFIC, siteSpaceIds: body.siteSpaceIds };
  if (body.mode === "current") return { ...scope, currentSiteSpaceId: body.siteSpaceId ?? "" };
  return scope;
}

export function searchRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const search = upstreams.content.search;
  const sites = upstreams.publishing.sites;
  return [
    // searchSpaceContent
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/search",
      params: z.object({ spaceId: pathId() }),
      query: searchQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const result = await search.searchSpaceContent({
          caller: principal.caller,
          spaceId: params.spaceId,
          query: query.query,
          page: toPageRequest(query, cursors),
        });
        const context = { urls, organizationId: result.organizationId };
        return ok(
          toPagedList(
            result.pages.map((page) => toRestSearchPage(page, context)),
            result.pageInfo,
            cursors,
          ),
        );
      },
    }),

    // searchOrganizationContent
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/search",
      params: z.object({ organizationId: pathId() }),
      query: searchQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const result = await search.searchOrganizationContent({
          caller: principal.caller,
          organizationId: params.organizationId,
          query: query.query,
          page: toPageRequest(query, cursors),
        });
        const context = { urls, organizationId: params.organizationId };
        return ok(
          toPagedList(
            result.spaces.map((space) => toRestSearchSpace(space, context)),
            result.pageInfo,
            cursors,
          ),
        );
      },
    }),

    // searchSiteContent: the site's spaces the caller can read, as searchOrganizationContent answers them.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/search",
      params: z.object({ organizationId: pathId(), siteId: pathId() }),
      query: z.object(pageQueryShape),
      body: searchSiteContentBody,
      handler: async ({ params, query, body, principal, cursors }) => {
        const result = await sites.searchSiteContent({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          query: body.query,
          scope: toSiteSearchScope(body),
          page: toPageRequest(query, cursors),
        });
        const context = { urls, organizationId: params.organizationId };
        return ok(
          toPagedList(
            result.spaces.map((space) => toRestSearchSpace(space, context)),
            result.pageInfo,
            cursors,
          ),
        );
      },
    }),
  ];
}
