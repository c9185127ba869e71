import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, sortDirectionFromProto, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { deleteComment } from "../use-cases/delete-comment.js";
import { deleteCommentReply } from "../use-cases/delete-comment-reply.js";
import { getComment } from "../use-cases/get-comment.js";
import { getCommentReply } from "../use-cases/get-comment-reply.js";
import { listCommentReplies } from "../use-cases/list-comment-replies.js";
import { listCommenters } from "../use-cases/list-commenters.js";
import { listComments } from "../use-cases/list-comments.js";
import { postComment } from "../use-cases/post-comment.js";
import { postCommentReply } from "../use-cases/post-comment-reply.js";
import { updateComment } from "../use-cases/update-comment.js";
import { updateCommentReply } from "../use-cases/update-comment-reply.js";
import { commentStatusFromProto, commentToProto, formatFromProto, replyToProto } from "./mappers.js";

export const COMMENT_SERVICE_NAME = "imprint.collaboration.v1.CommentService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function commentServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof CommentServiceService> {
  return {
    listComments: async (request) => {
      const page = await listComments(
        em(),
        {
          caller: request.caller,
          scope: request.scope,
          order: sortDirectionFromProto(request.order),
          status: commentStatusFromProto(request.status),
          targetPageId: request.targetPageId,
          authorUserIds: request.authorUserIds,
          format: formatFromProto(request.format),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { comments: page.items.map(commentToProto), page: pageInfo(page) };
    },

    postComment: async (request) => {
      const view = await postComment(
        em(),
        {
          caller: request.caller,
          scope: request.scope,
          pageId: request.pageId,
          nodeId: request.nodeId,
          markdown: request.markdown,
          format: formatFromProto(request.format),
        },
        deps,
      );
      return { comment: commentToProto(view) };
    },

    getComment: async (request) => {
      const view = await getComment(
        em(),
        { caller: request.caller, scope: request.scope, commentId: request.commentId, format: formatFromProto(request.format) },
        deps,
      );
      return { comment: commentToProto(view) };
    },

    updateComment: async (request) => {
      const view = await updateComment(
        em(),
        {
          caller: request.caller,
          scope: request.scope,
          commentId: request.commentId,
          updateMask: request.updateMask,
          resolved: request.resolved,
          markdown: request.markdown,
          addedReactions: request.addedReactions,
          removedReactions: request.removedReactions,
          format: formatFromProto(request.format),
        },
        deps,
      );
      return { comment: commentToProto(view) };
    },

    deleteComment: async (request) => ({
      deleted: await deleteComment(em(), { caller: request.caller, scope: request.scope, commentId: request.commentId }, deps),
    }),

    listCommentReplies: async (request) => {
      const page = await listCommentReplies(
        em(),
        {
          caller: request.caller,
          scope: request.scope,
          commentId: request.commentId,
          format: formatFromProto(request.format),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { replies: page.items.map(replyToProto), page: pageInfo(page) };
    },

    postCommentReply: async (request) => {
      const view = await postCommentReply(
        em(),
        { caller: request.caller, scope: request.scope, commentId: request.commentId, markdown: request.markdown, format: formatFromProto(request.format) },
        deps,
      );
      return { reply: replyToProto(view) };
    },

    getCommentReply: async (request) => {
      const view = await getCommentReply(
        em(),
        { caller: request.caller, scope: request.scope, commentId: request.commentId, replyId: request.replyId, format: formatFromProto(request.format) },
        deps,
      );
      return { reply: replyToProto(view) };
    },

    updateCommentReply: async (request) => {
      const view = await updateCommentReply(
        em(),
        {
          caller: request.caller,
          scope: request.scope,
          commentId: request.commentId,
          replyId: request.replyId,
          updateMask: request.updateMask,
          markdown: request.markdown,
          addedReactions: request.addedReactions,
          removedReactions: request.removedReactions,
          resolved: request.resolved,
          format: formatFromProto(request.format),
        },
        deps,
      );
      return { reply: replyToProto(view) };
    },

    deleteCommentReply: async (request) => ({
      deleted: await deleteCommentReply(em(), { caller: request.caller, scope: request.scope, commentId: request.commentId, replyId: request.replyId }, deps),
    }),

    listCommenters: async (request) => {
      const page = await listCommenters(em(), { caller: request.caller, scope: request.scope, page: pageRequest(request.page) }, deps);
      return { members: page.items, page: pageInfo(page) };
    },
  };
}
