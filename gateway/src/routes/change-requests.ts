import { ChangeRequestOrder, ChangeRequestStatus } from "@imprint/proto/collaboration/v1/change_requests";
import { AffectedPageKind, type AffectedPage, type BranchContentChange, type ContentPageFields } from "@imprint/proto/content/v1/editing";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { CHANGE_REQUEST_STATUS_NAMES, changeRequestLocation, toProtoChangeRequestStatus, toRestChangeRequest } from "../mappers/change-request.js";
import { toRestFile } from "../mappers/file.js";
import type { PublicUrls } from "../mappers/urls.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const spaceParams = z.object({ spaceId: pathId() });
/** `changeRequestId` is the change request's id or its number in the space; the service resolves either. */
const changeRequestParams = z.object({ spaceId: pathId(), changeRequestId: pathId() });

const ORDER_BY_NAME = {
  updatedAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_UPDATED_AT,
  createdAt: ChangeRequestOrder.CHANGE_REQUEST_ORDER_CREATED_AT,
} as const;

/**
 * listChangeRequestsForSpace. Imprint has no site topics, so no change request matches `topic`:
 * with it, the list is empty (access is still checked, so another organization's space stays a 404).
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

/** The fields and mask of UpdateChangeRequest: those the body has (`links`, ignored, is left out). */
export function toUpdateChangeRequestFields(body: z.output<typeof updateChangeRequestBody>) {
  return toMaskedUpdate(
    { subject: body.subject, description: body.description, status: body.status },
    { subject: "", description: "", status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_UNSPECIFIED },
    {
      subject: ["subject", (subject) => ({ subject })],
      description: ["description", (description) => ({ description: typeof description === "object" ? description.markdown : description })],
      status: ["status", (status) => ({ status: toProtoChangeRequestStatus(status) })],
    },
  );
}

/**
 * updateChangeRequestContent: the shape of GitBook's changes; their rules (1 to 50 changes, 1 to
 * 20 files, sizes, refs, ids) are the content service's. A document is markdown (`{markdown}`),
 * GitBook's JSON document (`{document}`, passed on as JSON text; content converts it) or empty
 * (`{}`); a non-empty adaptive-content `condition` is refused (Imprint has no adaptive content).
 */
const pageFieldsShape = {
  title: z.string().optional(),
  slug: z.string().optional(),
  emoji: z.string().optional(),
  icon: z.string().optional(),
  description: z.string().optional(),
  hidden: z.boolean().optional(),
  noIndex: z.boolean().optional(),
  noRobotsIndex: z.boolean().optional(),
  condition: z.literal("", { error: 'adaptive-content conditions are not supported (only "" to remove one)' }).optional(),
};
/** GitBook's JSON document, checked for shape only (its nodes are the content service's to read). */
const jsonDocument = z.looseObject({
  object: z.literal("document", { error: 'must be "document"' }),
  nodes: z.array(z.unknown(), { error: "must be an array" }),
});
const changeDocument = z
  .strictObject({
    markdown: z.string().optional(),
    document: jsonDocument.optional(),
  })
  .refine((document) => document.markdown === undefined || document.document === undefined, { error: "set one of markdown or document, not both" });
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
const fileToInsert = z
  .strictObject({
    ref: z.string().optional(),
    name: z.string().min(1).max(256),
    contentType: z.string().max(255).optional(),
    url: z.string().max(2048).optional(),
    base64: z.string().regex(BASE64, { error: "must be base64" }).optional(),
  })
  .refine((file) => (file.url === undefined) !== (file.base64 === undefined), { error: "set exactly one of url or base64" });
const contentChange = z.discriminatedUnion("operation", [
  z.strictObject({
    operation: z.literal("insert_page"),
    ...pageFieldsShape,
    into: z.string().max(128).optional(),
    at: z.number().int().optional(),
    ref: z.string().optional(),
    document: changeDocument,
  }),
  z.strictObject({
    operation: z.literal("update_page"),
    ...pageFieldsShape,
    page: pathId(),
    document: changeDocument.optional(),
    into: z.string().max(128).nullable().optional(),
    at: z.number().int().optional(),
  }),
  z.strictObject({ operation: z.literal("delete_page"), page: pathId() }),
  z.strictObject({ operation: z.literal("revert_page"), page: pathId(), revision: pathId().optional(), block: z.array(z.string()).optional() }),
  z.strictObject({ operation: z.literal("insert_files"), files: z.array(fileToInsert) }),
]);
export const updateChangeRequestContentBody = z.object({ changes: z.array(contentChange) });
const updateChangeRequestContentQuery = z.object({ compat: queryParam.boolean().optional() });

type RestContentChange = z.output<typeof contentChange>;

function fieldsOf(change: z.output<z.ZodObject<typeof pageFieldsShape>>): ContentPageFields {
  const { title, slug, emoji, icon, description, hidden, noIndex, noRobotsIndex } = change;
  return { title, slug, emoji, icon, description, hidden, noIndex, noRobotsIndex };
}

/** The page body: markdown, or the JSON document as JSON text. */
function bodyOf(document: z.output<typeof changeDocument>): { markdown: string; documentJson: string | undefined } {
  return { markdown: document.markdown ?? "", documentJson: document.document === undefined ? undefined : JSON.stringify(document.document) };
}

function insertBody(document: z.output<typeof changeDocument>): { markdown: string; documentJson: string } {
  const body = bodyOf(document);
  return { markdown: body.markdown, documentJson: body.documentJson ?? "" };
}

function toProtoChange(change: RestContentChange): BranchContentChange {
  switch (change.operation) {
    case "insert_page":
      return {
        insertPage: { fields: fieldsOf(change), intoPageId: change.into ?? "", at: change.at, ref: change.ref ?? "", ...insertBody(change.document) },
      };
    case "update_page":
      return {
        updatePage: {
          pageId: change.page,
          fields: fieldsOf(change),
          ...(change.document ? bodyOf(change.document) : {}),
          moveInto: change.into !== undefined,
          intoPageId: change.into ?? "",
          at: change.at,
        },
      };
    case "delete_page":
      return { deletePage: { pageId: change.page } };
    case "revert_page":
      return { revertPage: { pageId: change.page, revisionId: change.revision ?? "", blocks: change.block ?? [] } };
    case "insert_files":
      return {
        insertFiles: {
          files: change.files.map((file) => ({
            ref: file.ref ?? "",
            name: file.name,
            contentType: file.contentType ?? "",
            ...(file.url !== undefined ? { url: file.url } : { content: Buffer.from(file.base64 ?? "", "base64") }),
          })),
        },
      };
  }
}

const AFFECTED_OBJECT = {
  [AffectedPageKind.AFFECTED_PAGE_KIND_CREATED]: "created_page",
  [AffectedPageKind.AFFECTED_PAGE_KIND_UPDATED]: "updated_page",
  [AffectedPageKind.AFFECTED_PAGE_KIND_DELETED]: "deleted_page",
} as const;

/** GitBook's ChangeRequestContentUpdateChange; `urls.location` reads the page in the change request. */
function toRestAffectedPage(page: AffectedPage, urls: PublicUrls, spaceId: string, changeRequestId: string): Record<string, unknown> {
  const kind = page.kind as keyof typeof AFFECTED_OBJECT;
  const object = AFFECTED_OBJECT[kind];
  if (!object) throw new AppError("internal", `upstream answered an unknown affected page kind ${String(page.kind)}`);
  if (object === "deleted_page") return { object, page: page.pageId };
  const location = `${changeRequestLocation(urls, spaceId, changeRequestId)}/content/page/${encodeURIComponent(page.pageId)}`;
  return { object, ...(object === "created_page" && page.ref !== "" ? { ref: page.ref } : {}), page: { object: "page", id: page.pageId, urls: { location } } };
}

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
        const matchesNothing = query.topic !== undefined;
        const response = await changeRequests.listChangeRequests({
          caller: principal.caller,
          spaceId: params.spaceId,
          status: query.status ? toProtoChangeRequestStatus(query.status) : ChangeRequestStatus.CHANGE_REQUEST_STATUS_UNSPECIFIED,
          creatorUserId: query.creator ?? "",
          contributorUserId: query.contributor ?? "",
          requestedReviewerUserId: query.requestedReviewer ?? "",
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
        const response = await changeRequests.updateChangeRequest({ caller: principal.caller, ...params, ...toUpdateChangeRequestFields(body) });
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

    // updateChangeRequestContent: a batch of content changes as one revision of the change request.
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/content",
      params: changeRequestParams,
      query: updateChangeRequestContentQuery,
      body: updateChangeRequestContentBody,
      handler: async ({ params, query, body, principal }) => {
        const response = await changeRequests.updateChangeRequestContent({ caller: principal.caller, ...params, changes: body.changes.map(toProtoChange) });
        const changeRequest = toRestChangeRequest(response.changeRequest, urls);
        if (query.compat ?? true) return ok(changeRequest);
        return ok({
          changeRequest,
          changes: response.pages.map((page) => toRestAffectedPage(page, urls, changeRequest.space, changeRequest.id)),
          insertedFiles: response.insertedFiles.map(toRestFile),
        });
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
