import { z } from "zod";
import { toRestSearchPage, toRestSearchSpace } from "../mappers/search.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

/** `query` (web-search syntax, at most 512 characters per GitBook's schema) and the list parameters. */
const searchQuery = z.object({ ...pageQueryShape, query: z.string().trim().min(1).max(512) });

export function searchRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const search = upstreams.content.search;
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
  ];
}
