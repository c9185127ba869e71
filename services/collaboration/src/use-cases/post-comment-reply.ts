import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { CommentReply, validateMarkdown } from "../domain/comment.js";
import { commentReplyCreated, spaceEventPayload } from "../events.js";
import type { CallerInput } from "./shared/access.js";
import { replyViews, type BodyFormat, type ReplyView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";
import { findComment, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface PostCommentReplyInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  markdown: string;
  format: BodyFormat;
}

/** Adds a reply to a comment's thread (comment right) and counts it on the comment. */
export async function postCommentReply(em: EntityManager, input: PostCommentReplyInput, deps: UseCaseDeps): Promise<ReplyView> {
  const markdown = validateMarkdown(input.markdown);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "comment");
  // The author is the caller, read before the commit: once the reply is saved, nothing may fail.
  const users = await loadUsers(deps, [scope.caller.userId]);
  const reply = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findComment(tx, scope, input.commentId, { lock: true });
    const reply = tx.create(CommentReply, {
      commentId: comment.id,
      spaceId: comment.spaceId,
      changeRequestId: comment.changeRequestId ?? null,
      organizationId: comment.organizationId,
      authorId: scope.caller.userId,
      markdown,
      postedAt: deps.clock(),
      editedAt: null,
    });
    comment.replyAdded();
    recordEvent(tx, commentReplyCreated, {
      organizationId: comment.organizationId,
      actor: scope.caller,
      payload: await spaceEventPayload(tx, comment.spaceId, { commentId: comment.id, replyId: reply.id, changeRequestId: comment.changeRequestId }),
    });
    return reply;
  });
  const [view] = await replyViews(em, deps, scope, [reply], input.format, users);
  return view!;
}
