import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { recordCollaborationEvent } from "../events.js";
import type { CallerInput } from "./shared/access.js";
import { replyViews, type BodyFormat, type ReplyView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "./shared/deps.js";
import { applyReactionChanges, hasReactionChanges, validateMarkdown, validateReactionChanges } from "./shared/posts.js";
import { recordResolution } from "./shared/resolution.js";
import { findComment, findReply, requireComment, requireManage, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface UpdateCommentReplyInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  replyId: string;
  markdown: string | undefined;
  addedReactions: readonly string[];
  removedReactions: readonly string[];
  /** On change requests only: resolve (true) or reopen (false) the reply's comment. */
  resolved: boolean | undefined;
  format: BodyFormat;
}

/**
 * Changes a reply: its body (author or space admin), the caller's reactions (comment right) and,
 * on a change request, the resolution of its comment (comment right), as GitBook's API allows
 * for change request replies only.
 */
export async function updateCommentReply(em: EntityManager, input: UpdateCommentReplyInput, deps: UseCaseDeps): Promise<ReplyView> {
  const markdown = input.markdown === undefined ? undefined : validateMarkdown(input.markdown);
  const reactions = validateReactionChanges(input.addedReactions, input.removedReactions);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  if (input.resolved !== undefined && !scope.changeRequest) {
    throw AppError.invalidArgument("resolved: only replies on a change request resolve their comment");
  }
  const reply = await em.transactional(async (tx) => {
    const comment = await findComment(tx, scope, input.commentId, { lock: true });
    const reply = await findReply(tx, comment, input.replyId, { lock: true });
    if (input.resolved !== undefined || hasReactionChanges(reactions)) requireComment(scope);
    if (markdown !== undefined) requireManage(scope, reply.authorId, "reply");
    const now = deps.clock();
    const changedFields: string[] = [];
    if (markdown !== undefined && markdown !== reply.markdown) {
      reply.markdown = markdown;
      reply.editedAt = now;
      changedFields.push("body");
    }
    if (await applyReactionChanges(tx, { targetId: reply.id, commentId: comment.id, spaceId: comment.spaceId }, scope.caller.userId, reactions, now)) {
      changedFields.push("reactions");
    }
    if (changedFields.length > 0) {
      await recordCollaborationEvent(tx, deps, {
        aggregate: "comment_reply",
        name: "updated",
        organizationId: comment.organizationId,
        actor: scope.caller,
        spaceId: comment.spaceId,
        payload: { commentId: comment.id, replyId: reply.id, changeRequestId: comment.changeRequestId, changedFields },
      });
    }
    if (input.resolved !== undefined) await recordResolution(tx, deps, scope.caller, comment, input.resolved);
    return reply;
  });
  deps.relay.notify();
  const [view] = await replyViews(em, deps, scope, [reply], input.format);
  return view!;
}
