import { z } from "zod";
import { toRestContentChange } from "../mappers/content-change.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const changeRequestParams = z.object({ spaceId: pathId(), changeRequestId: pathId() });

/** GitBook's default number of changes per answer. */
export const DEFAULT_CHANGES_LIMIT = 10;

/**
 * getChangeRequestChanges: GitBook's `limit` (default 10), and `page`, a cursor from the previous
 * answer's `next.page` (an Imprint extension: GitBook only says how many changes are left, `more`).
 */
export const changeRequestChangesQuery = z.object({
  limit: queryParam.integer(1, 1000).optional(),
  page: z.string().min(1).max(2048).optional(),
});

export function changeRequestChangesRoutes({ upstreams }: RouteDeps): Route[] {
  const revisions = upstreams.content.revisions;
  return [
    // getChangeRequestChanges
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/changes",
      params: changeRequestParams,
      query: changeRequestChangesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await revisions.listBranchChanges({
          caller: principal.caller,
          ref: { spaceId: params.spaceId, changeRequestId: params.changeRequestId, revisionId: "" },
          page: { pageToken: query.page === undefined ? "" : cursors.open(query.page), pageSize: query.limit ?? DEFAULT_CHANGES_LIMIT },
        });
        const next = response.page?.nextPageToken ?? "";
        return ok({
          changes: response.changes.map(toRestContentChange),
          ...(response.remaining > 0 ? { more: response.remaining } : {}),
          ...(next ? { next: { page: cursors.seal(next) } } : {}),
        });
      },
    }),
  ];
}
