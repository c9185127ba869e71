import { type EntityManager } from "@mikro-orm/postgresql";
import { findOwnedOrNull, recordEvent } from "@imprint/runtime";
import { Comment, CommentReply, Reaction } from "../domain/comment.js";
import { commentDeleted, spaceEventPayload } from "../events.js";
import { isId, type CallerInput } from "./shared/access.js";
import type { UseCaseDeps } from "../deps.js";
import { requireManage, resolveScope, scopeFilter, type CommentScopeInput } from "./shared/scope.js";

export interface DeleteCommentInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
}

/** Deletes a comment with its replies and reactions (author or space admin); false when it did not exist. */
export async function deleteComment(em: EntityManager, input: DeleteCommentInput, deps: UseCaseDeps): Promise<boolean> {
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  if (!isId(input.commentId)) return false;
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findOwnedOrNull(tx, Comment, scopeFilter(scope), input.commentId, { lock: true });
    if (!comment) return false;
    requireManage(scope, comment.authorId, "comment");
    await tx.nativeDelete(Reaction, { commentId: comment.id });
    await tx.nativeDelete(CommentReply, { commentId: comment.id });
    tx.remove(comment);
    recordEvent(tx, commentDeleted, {
      organizationId: comment.organizationId,
      actor: scope.caller,
      payload: await spaceEventPayload(tx, comment.spaceId, { commentId: comment.id, changeRequestId: comment.changeRequestId }),
    });
    return true;
  });
  return deleted;
}
