import { ChangeRequestOrder } from "@imprint/proto/collaboration/v1/change_requests";
import { z } from "zod";
import { CHANGE_REQUEST_STATUS_NAMES, toProtoChangeRequestStatus, toRestChangeRequest } from "../mappers/change-request.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });

const ORDER_BY_NAME = {
  updatedAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_UPDATED_AT,
  createdAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_CREATED_AT,
} as const;

/** `status` is a list: GitBook's client repeats the parameter (`status=open&status=draft`); a comma-separated value is read too. */
const statusesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((entry) => entry.split(","))
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  )
  .pipe(z.array(z.enum(CHANGE_REQUEST_STATUS_NAMES)).max(CHANGE_REQUEST_STATUS_NAMES.length * 4));

/**
 * listChangeRequestsForOrganization. Imprint has no requested reviewers, sites, site topics, style
 * guide runs or triage findings: `requestedReviewer`, `site`, `topic` and `styleguideRun` match no
 * change request (the list is empty; membership is still checked), and `finding` changes nothing.
 */
export const listOrganizationChangeRequestsQuery = z.object({
  ...pageQueryShape,
  status: statusesParam.optional(),
  creator: pathId().optional(),
  contributor: pathId().optional(),
  requestedReviewer: pathId().optional(),
  site: pathId().optional(),
  space: pathId().optional(),
  topic: pathId().optional(),
  styleguideRun: pathId().optional(),
  finding: z.enum(["none", "all"]).optional(),
  orderBy: z.enum(["updatedAt", "createdAt"]).optional(),
});

export function organizationChangeRequestRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const changeRequests = upstreams.collaboration.changeRequests;
  return [
    // listChangeRequestsForOrganization
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/change-requests",
      params: organizationParams,
      query: listOrganizationChangeRequestsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const matchesNothing = [query.requestedReviewer, query.site, query.topic, query.styleguideRun].some((value) => value !== undefined);
        const response = await changeRequests.listOrganizationChangeRequests({
          caller: principal.caller,
          organizationId: params.organizationId,
          statuses: (query.status ?? []).map(toProtoChangeRequestStatus),
          creatorUserId: query.creator ?? "",
          contributorUserId: query.contributor ?? "",
          spaceId: query.space ?? "",
          orderBy: query.orderBy ? ORDER_BY_NAME[query.orderBy] : ChangeRequestOrder.CHANGE_REQUEST_ORDER_UNSPECIFIED,
          page: matchesNothing ? { pageToken: "", pageSize: 1 } : toPageRequest(query, cursors),
        });
        if (matchesNothing) return ok(toPagedList([], { nextPageToken: "", totalCount: 0 }, cursors));
        return ok(
          toPagedList(
            response.changeRequests.map((cr) => toRestChangeRequest(cr, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),
  ];
}
