import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { commentReplyUpdated, spaceEventPayload } from "../events.js";
import type { CallerInput } from "./shared/access.js";
import { readReplyUsers, replyViews, type BodyFormat, type ReplyView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { hasReactionChanges, validateMarkdown, validateReactionChanges } from "../domain/comment.js";
import { applyPostEdit } from "./shared/posts.js";
import { recordResolution } from "./shared/resolution.js";
import { findComment, findReply, requireComment, requireManage, resolveScope, type CommentScopeInput } from "./shared/scope.js";

const UPDATABLE_FIELDS = ["markdown", "resolved"] as const;

export interface UpdateCommentReplyInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  replyId: string;
  /** Field paths, snake_case or camelCase; empty changes no field (the reactions still apply). */
  updateMask: readonly string[] | undefined;
  markdown: string;
  addedReactions: readonly string[];
  removedReactions: readonly string[];
  /** On change requests only: resolve (true) or reopen (false) the reply's comment. */
  resolved: boolean;
  format: BodyFormat;
}

/**
 * Changes a reply: its body (author or space admin) and, on a change request, the resolution of
 * its comment (comment right), as GitBook's API allows for change request replies only, those the
 * update mask names; and the caller's reactions (comment right).
 */
export async function updateCommentReply(em: EntityManager, input: UpdateCommentReplyInput, deps: UseCaseDeps): Promise<ReplyView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const markdown = fields.has("markdown") ? validateMarkdown(input.markdown) : undefined;
  const resolved = fields.has("resolved") ? input.resolved : undefined;
  const reactions = validateReactionChanges(input.addedReactions, input.removedReactions);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  if (resolved !== undefined && !scope.changeRequest) {
    throw AppError.invalidArgument("resolved: only replies on a change request resolve their comment");
  }
  // The users the answer names are read before the commit (the caller too, who may react): once
  // the change is saved, nothing may fail.
  const before = em.fork();
  const users = await readReplyUsers(
    em,
    deps,
    [await findReply(before, await findComment(before, scope, input.commentId), input.replyId)],
    [scope.caller.userId],
  );
  const reply = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findComment(tx, scope, input.commentId, { lock: true });
    const reply = await findReply(tx, comment, input.replyId, { lock: true });
    if (resolved !== undefined || hasReactionChanges(reactions)) requireComment(scope);
    if (markdown !== undefined) requireManage(scope, reply.authorId, "reply");
    const changedFields = await applyPostEdit(tx, reply, comment, scope.caller.userId, { markdown, reactions }, deps.clock());
    if (changedFields.length > 0)
      recordEvent(tx, commentReplyUpdated, {
        organizationId: comment.organizationId,
        actor: scope.caller,
        payload: await spaceEventPayload(tx, comment.spaceId, {
          commentId: comment.id,
          replyId: reply.id,
          changeRequestId: comment.changeRequestId,
          changedFields,
        }),
      });
    if (resolved !== undefined) await recordResolution(tx, deps, scope.caller, comment, resolved);
    return reply;
  });
  const [view] = await replyViews(em, deps, scope, [reply], input.format, users);
  return view!;
}
