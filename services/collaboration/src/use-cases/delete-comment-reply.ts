import { type EntityManager } from "@mikro-orm/postgresql";
import { findOwnedOrNull, recordEvent } from "@imprint/runtime";
import { Comment, CommentReply, Reaction } from "../domain/comment.js";
import { commentReplyDeleted, spaceEventPayload } from "../events.js";
import { isId, type CallerInput } from "./shared/access.js";
import type { UseCaseDeps } from "../deps.js";
import { requireManage, resolveScope, scopeFilter, type CommentScopeInput } from "./shared/scope.js";

export interface DeleteCommentReplyInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  replyId: string;
}

/** Deletes a reply and its reactions (author or space admin); false when it (or its comment) did not exist. */
export async function deleteCommentReply(em: EntityManager, input: DeleteCommentReplyInput, deps: UseCaseDeps): Promise<boolean> {
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  if (!isId(input.commentId) || !isId(input.replyId)) return false;
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findOwnedOrNull(tx, Comment, scopeFilter(scope), input.commentId, { lock: true });
    const reply = comment ? await tx.findOne(CommentReply, { id: input.replyId, commentId: comment.id }) : null;
    if (!comment || !reply) return false;
    requireManage(scope, reply.authorId, "reply");
    await tx.nativeDelete(Reaction, { targetId: reply.id });
    tx.remove(reply);
    comment.replyRemoved();
    recordEvent(tx, commentReplyDeleted, {
      organizationId: comment.organizationId,
      actor: scope.caller,
      payload: await spaceEventPayload(tx, comment.spaceId, { commentId: comment.id, replyId: reply.id, changeRequestId: comment.changeRequestId }),
    });
    return true;
  });
  return deleted;
}
