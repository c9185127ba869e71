import { SortOrder } from "@imprint/proto/common/v1";
import { CommentFormat, CommentStatus, type CommentScope } from "@imprint/proto/collaboration/v1/comments";
import { z } from "zod";
import { toRestComment, toRestCommentReply } from "../mappers/comment.js";
import { toRestMember } from "../mappers/member.js";
import { pageQueryShape, pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

/**
 * Comments and replies. Every operation exists under a space (`/v1/spaces/{spaceId}/comments`)
 * and under each of its change requests (`.../change-requests/{changeRequestId}/comments`): a
 * prefix is a path and how its parameters name the thread container (`CommentScope`), the
 * operations are shared.
 */
export interface CommentPrefix {
  /** The path the comments and commenters hang under, e.g. `/v1/spaces/:spaceId`. */
  path: string;
  params: Record<string, ReturnType<typeof pathId>>;
  scope(params: Record<string, string>): CommentScope;
  /** Whether a reply update may resolve its comment (GitBook: on change requests only). */
  repliesResolve: boolean;
}

export const spaceCommentPrefix: CommentPrefix = {
  path: "/v1/spaces/:spaceId",
  params: { spaceId: pathId() },
  scope: (params) => ({ spaceId: params.spaceId ?? "", changeRequestId: "" }),
  repliesResolve: false,
};

/** A change request's comments, named by the change request's id or number. */
export const changeRequestCommentPrefix: CommentPrefix = {
  path: "/v1/spaces/:spaceId/change-requests/:changeRequestId",
  params: { spaceId: pathId(), changeRequestId: pathId() },
  scope: (params) => ({ spaceId: params.spaceId ?? "", changeRequestId: params.changeRequestId ?? "" }),
  repliesResolve: true,
};

const FORMAT_BY_NAME = { document: CommentFormat.COMMENT_FORMAT_DOCUMENT, markdown: CommentFormat.COMMENT_FORMAT_MARKDOWN } as const;
const STATUS_BY_NAME = {
  all: CommentStatus.COMMENT_STATUS_UNSPECIFIED,
  open: CommentStatus.COMMENT_STATUS_OPEN,
  resolved: CommentStatus.COMMENT_STATUS_RESOLVED,
} as const;

const formatShape = { format: z.enum(["document", "markdown"]).optional() };
const formatQuery = z.object(formatShape);

/** Bodies come back as GitBook's JSON document unless markdown is asked for. */
function toProtoFormat(query: z.output<typeof formatQuery>): CommentFormat {
  return FORMAT_BY_NAME[query.format ?? "document"];
}

/**
 * `authors` is a list of user ids: GitBook's client repeats the parameter (`authors=a&authors=b`);
 * a comma-separated value is read too.
 */
const authorsParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((entry) => entry.split(","))
      .map((id) => id.trim())
      .filter((id) => id !== ""),
  )
  .pipe(z.array(pathId()).max(100));

export const listCommentsQuery = z.object({
  ...pageQueryShape,
  ...formatShape,
  order: z.enum(["asc", "desc"]).optional(),
  status: z.enum(["all", "open", "resolved"]).optional(),
  targetPage: pathId().optional(),
  authors: authorsParam.optional(),
});

/** GitBook's markdown document form of a body (the only form Imprint reads). */
const markdownBody = z.object({ markdown: z.string() });

/** PostCommentSchema: `tableCell` is accepted and ignored (Imprint's tables have no record cells to anchor on). */
export const postCommentBody = z.object({
  node: pathId().optional(),
  page: pathId().optional(),
  body: markdownBody,
  tableCell: z.object({ record: z.string(), definition: z.string() }).optional(),
});

const reactionsShape = {
  addedReactions: z.array(z.string()).optional(),
  removedReactions: z.array(z.string()).optional(),
};

/** UpdateCommentSchema (replies on change requests take it too; `resolved` then resolves the comment). */
export const updateCommentBody = z.object({ resolved: z.boolean().optional(), body: markdownBody.optional(), ...reactionsShape });
export const postCommentReplyBody = z.object({ body: markdownBody });

/**
 * The fields and mask of UpdateComment and UpdateCommentReply: the body and the resolution the
 * body has (a reply's `resolved` only where `resolves`), and the reactions, which are changes
 * themselves and apply whatever the mask names.
 */
export function toUpdateCommentFields(body: z.output<typeof updateCommentBody>, resolves: boolean) {
  return {
    ...toMaskedUpdate(
      { resolved: resolves ? body.resolved : undefined, body: body.body },
      { resolved: false, markdown: "" },
      { resolved: ["resolved", (resolved) => ({ resolved })], body: ["markdown", (body) => ({ markdown: body.markdown })] },
    ),
    addedReactions: body.addedReactions ?? [],
    removedReactions: body.removedReactions ?? [],
  };
}

export function commentRoutesFor(prefix: CommentPrefix, { upstreams, urls }: RouteDeps): Route[] {
  const comments = upstreams.collaboration.comments;
  const base = `${prefix.path}/comments`;
  const prefixParams = z.object(prefix.params);
  const commentParams = z.object({ ...prefix.params, commentId: pathId() });
  const replyParams = z.object({ ...prefix.params, commentId: pathId(), commentReplyId: pathId() });
  const repliesQuery = z.object({ ...pageQueryShape, ...formatShape });

  return [
    // listCommentsInSpace / listCommentsInChangeRequest
    defineRoute({
      method: "GET",
      path: base,
      params: prefixParams,
      query: listCommentsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await comments.listComments({
          caller: principal.caller,
          scope: prefix.scope(params),
          order: query.order === "asc" ? SortOrder.SORT_ORDER_ASC : SortOrder.SORT_ORDER_DESC,
          status: STATUS_BY_NAME[query.status ?? "all"],
          targetPageId: query.targetPage ?? "",
          authorUserIds: query.authors ?? [],
          format: toProtoFormat(query),
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.comments.map((comment) => toRestComment(comment, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // postCommentInSpace / postCommentInChangeRequest: 200, as GitBook answers.
    defineRoute({
      method: "POST",
      path: base,
      params: prefixParams,
      body: postCommentBody,
      handler: async ({ params, body, principal }) => {
        const response = await comments.postComment({
          caller: principal.caller,
          scope: prefix.scope(params),
          pageId: body.page ?? "",
          nodeId: body.node ?? "",
          markdown: body.body.markdown,
          format: CommentFormat.COMMENT_FORMAT_DOCUMENT,
        });
        return ok(toRestComment(response.comment, urls));
      },
    }),

    // getCommentInSpace / getCommentInChangeRequest
    defineRoute({
      method: "GET",
      path: `${base}/:commentId`,
      params: commentParams,
      query: formatQuery,
      handler: async ({ params, query, principal }) => {
        const response = await comments.getComment({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          format: toProtoFormat(query),
        });
        return ok(toRestComment(response.comment, urls));
      },
    }),

    // updateCommentInSpace / updateCommentInChangeRequest
    defineRoute({
      method: "PUT",
      path: `${base}/:commentId`,
      params: commentParams,
      body: updateCommentBody,
      handler: async ({ params, body, principal }) => {
        const response = await comments.updateComment({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          ...toUpdateCommentFields(body, true),
          format: CommentFormat.COMMENT_FORMAT_DOCUMENT,
        });
        return ok(toRestComment(response.comment, urls));
      },
    }),

    // deleteCommentInSpace / deleteCommentInChangeRequest: 204 whether or not it existed (interface.md; GitBook uses 205 when deleted).
    defineRoute({
      method: "DELETE",
      path: `${base}/:commentId`,
      params: commentParams,
      handler: async ({ params, principal }) => {
        await comments.deleteComment({ caller: principal.caller, scope: prefix.scope(params), commentId: params.commentId });
        return noContent();
      },
    }),

    // listCommentRepliesInSpace / listCommentRepliesInChangeRequest
    defineRoute({
      method: "GET",
      path: `${base}/:commentId/replies`,
      params: commentParams,
      query: repliesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await comments.listCommentReplies({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          format: toProtoFormat(query),
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.replies.map((reply) => toRestCommentReply(reply, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // postCommentReplyInSpace / postCommentReplyInChangeRequest (the latter documents `format`; both read it)
    defineRoute({
      method: "POST",
      path: `${base}/:commentId/replies`,
      params: commentParams,
      query: formatQuery,
      body: postCommentReplyBody,
      handler: async ({ params, query, body, principal }) => {
        const response = await comments.postCommentReply({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          markdown: body.body.markdown,
          format: toProtoFormat(query),
        });
        return ok(toRestCommentReply(response.reply, urls));
      },
    }),

    // getCommentReplyInSpace / getCommentReplyInChangeRequest
    defineRoute({
      method: "GET",
      path: `${base}/:commentId/replies/:commentReplyId`,
      params: replyParams,
      query: formatQuery,
      handler: async ({ params, query, principal }) => {
        const response = await comments.getCommentReply({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          replyId: params.commentReplyId,
          format: toProtoFormat(query),
        });
        return ok(toRestCommentReply(response.reply, urls));
      },
    }),

    // updateCommentReplyInSpace / updateCommentReplyInChangeRequest (`resolved` is read on change requests only)
    defineRoute({
      method: "PUT",
      path: `${base}/:commentId/replies/:commentReplyId`,
      params: replyParams,
      body: updateCommentBody,
      handler: async ({ params, body, principal }) => {
        const response = await comments.updateCommentReply({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          replyId: params.commentReplyId,
          ...toUpdateCommentFields(body, prefix.repliesResolve),
          format: CommentFormat.COMMENT_FORMAT_DOCUMENT,
        });
        return ok(toRestCommentReply(response.reply, urls));
      },
    }),

    // deleteCommentReplyInSpace / deleteCommentReplyInChangeRequest: 204 whether or not it existed (GitBook uses 205 when deleted).
    defineRoute({
      method: "DELETE",
      path: `${base}/:commentId/replies/:commentReplyId`,
      params: replyParams,
      handler: async ({ params, principal }) => {
        await comments.deleteCommentReply({
          caller: principal.caller,
          scope: prefix.scope(params),
          commentId: params.commentId,
          replyId: params.commentReplyId,
        });
        return noContent();
      },
    }),

    // listCommentersInSpace / listCommentersInChangeRequest
    defineRoute({
      method: "GET",
      path: `${prefix.path}/commenters`,
      params: prefixParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await comments.listCommenters({ caller: principal.caller, scope: prefix.scope(params), page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.members.map((member) => toRestMember(member, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),
  ];
}

/** The comment routes of spaces and of change requests. */
export function commentRoutes(deps: RouteDeps): Route[] {
  return [spaceCommentPrefix, changeRequestCommentPrefix].flatMap((prefix) => commentRoutesFor(prefix, deps));
}
