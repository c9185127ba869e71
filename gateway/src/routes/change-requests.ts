import { ChangeRequestOrder, ChangeRequestStatus } from "@imprint/proto/collaboration/v1/change_requests";
import { z } from "zod";
import {
  CHANGE_REQUEST_STATUS_NAMES,
  changeRequestLocation,
  toProtoChangeRequestStatus,
  toRestChangeRequest,
} from "../mappers/change-request.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const spaceParams = z.object({ spaceId: pathId() });
/** `changeRequestId` is the change request's id or its number in the space; the service resolves either. */
const changeRequestParams = z.object({ spaceId: pathId(), changeRequestId: pathId() });

const ORDER_BY_NAME = {
  updatedAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_UPDATED_AT,
  createdAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_CREATED_AT,
} as const;

/**
 * listChangeRequestsForSpace. Imprint has neither requested reviewers nor site topics, so no change
 * request matches `requestedReviewer` or `topic`: with either, the list is empty (access is still
 * checked, so another organization's space stays a 404).
 */
export const listChangeRequestsQuery = z.object({
  ...pageQueryShape,
  status: z.enum(CHANGE_REQUEST_STATUS_NAMES).optional(),
  creator: pathId().optional(),
  contributor: pathId().optional(),
  requestedReviewer: pathId().optional(),
  topic: pathId().optional(),
  orderBy: z.enum(["updatedAt", "createdAt"]).optional(),
});

/** createChangeRequest: `template` is accepted and ignored: a change request starts as a copy of the space's content. */
export const createChangeRequestBody = z
  .object({
    subject: z.string().optional(),
    agentTaskId: z.string().optional(),
    template: z.unknown().optional(),
  })
  .optional();

/**
 * updateChangeRequestById. `description` is markdown, sent as a string or as GitBook's markdown
 * document `{markdown}` (GitBook's JSON document form is not read). `links` is accepted and ignored:
 * Imprint keeps no external links on change requests. A change request becomes merged only
 * through the merge operation.
 */
export const updateChangeRequestBody = z.object({
  subject: z.string().optional(),
  description: z.union([z.string(), z.object({ markdown: z.string() })]).optional(),
  status: z
    .enum(["draft", "open", "archived"], { error: "must be one of draft, open, archived (a change request is merged through POST .../merge)" })
    .optional(),
  links: z.unknown().optional(),
});

/** RFC 7240: `Prefer` lists preferences separated by commas; only `return=minimal` changes the answer. */
function prefersMinimal(header: string): boolean {
  return header.split(",").some((preference) => preference.trim().toLowerCase() === "return=minimal");
}

export function changeRequestRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const changeRequests = upstreams.collaboration.changeRequests;
  return [
    // listChangeRequestsForSpace
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/change-requests",
      params: spaceParams,
      query: listChangeRequestsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const matchesNothing = query.requestedReviewer !== undefined || query.topic !== undefined;
        const response = await changeRequests.listChangeRequests({
          caller: principal.caller,
          spaceId: params.spaceId,
          status: query.status ? toProtoChangeRequestStatus(query.status) : ChangeRequestStatus.CHANGE_REQUEST_STATUS_UNSPECIFIED,
          creatorUserId: query.creator ?? "",
          contributorUserId: query.contributor ?? "",
          orderBy: query.orderBy ? ORDER_BY_NAME[query.orderBy] : ChangeRequestOrder.CHANGE_REQUEST_ORDER_UNSPECIFIED,
          page: matchesNothing ? { pageToken: "", pageSize: 1 } : toPageRequest(query, cursors),
        });
        if (matchesNothing) return ok(toPagedList([], { nextPageToken: "", totalCount: 0 }, cursors));
        return ok(toPagedList(response.changeRequests.map((cr) => toRestChangeRequest(cr, urls)), response.page, cursors));
      },
    }),

    // createChangeRequest
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/change-requests",
      params: spaceParams,
      body: createChangeRequestBody,
      handler: async ({ params, body, principal }) => {
        const response = await changeRequests.createChangeRequest({
          caller: principal.caller,
          spaceId: params.spaceId,
          subject: body?.subject ?? "",
          agentTaskId: body?.agentTaskId ?? "",
        });
        const changeRequest = toRestChangeRequest(response.changeRequest, urls);
        return created(changeRequest, changeRequestLocation(urls, changeRequest.space, changeRequest.id));
      },
    }),

    // getChangeRequestById
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId",
      params: changeRequestParams,
      handler: async ({ params, principal }) => {
        const response = await changeRequests.getChangeRequest({ caller: principal.caller, ...params });
        return ok(toRestChangeRequest(response.changeRequest, urls));
      },
    }),

    // updateChangeRequestById: `Prefer: return=minimal` answers 204 with Preference-Applied.
    defineRoute({
      method: "PATCH",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId",
      params: changeRequestParams,
      body: updateChangeRequestBody,
      handler: async ({ params, body, principal, ctx }) => {
        const description = typeof body.description === "object" ? body.description.markdown : body.description;
        const response = await changeRequests.updateChangeRequest({
          caller: principal.caller,
          ...params,
          subject: body.subject,
          description,
          status: body.status ? toProtoChangeRequestStatus(body.status) : undefined,
        });
        if (prefersMinimal(ctx.get("Prefer"))) {
          ctx.set("Preference-Applied", "return=minimal");
          return noContent();
        }
        return ok(toRestChangeRequest(response.changeRequest, urls));
      },
    }),

    // mergeChangeRequest: a conflict answers 409 naming the pages (and changes nothing).
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/merge",
      params: changeRequestParams,
      handler: async ({ params, principal }) => {
        const response = await changeRequests.mergeChangeRequest({ caller: principal.caller, ...params });
        return ok({ revision: response.revisionId, result: "merge" });
      },
    }),

    // updateChangeRequest: brings the space's content into the change request.
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/update",
      params: changeRequestParams,
      handler: async ({ params, principal }) => {
        const response = await changeRequests.updateChangeRequestFromMain({ caller: principal.caller, ...params });
        return ok({ revision: response.revisionId, result: "update" });
      },
    }),
  ];
}
