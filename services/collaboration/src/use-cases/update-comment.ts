import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { commentUpdated, spaceEventPayload } from "../events.js";
import type { CallerInput } from "./shared/access.js";
import { commentViews, readCommentSources, type BodyFormat, type CommentView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { hasReactionChanges, validateMarkdown, validateReactionChanges } from "../domain/comment.js";
import { applyPostEdit } from "./shared/posts.js";
import { recordResolution } from "./shared/resolution.js";
import { findComment, requireComment, requireManage, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface UpdateCommentInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  /** Resolve (true) or reopen (false); undefined leaves it. */
  resolved: boolean | undefined;
  /** New body; undefined leaves it. */
  markdown: string | undefined;
  addedReactions: readonly string[];
  removedReactions: readonly string[];
  format: BodyFormat;
}

/**
 * Changes a comment: its body (author or space admin; `comment.updated`), its resolution (comment
 * right; `comment.resolved` / `comment.reopened`) and the caller's reactions (comment right;
 * `comment.updated` with `reactions`). What does not change records nothing.
 */
export async function updateComment(em: EntityManager, input: UpdateCommentInput, deps: UseCaseDeps): Promise<CommentView> {
  const markdown = input.markdown === undefined ? undefined : validateMarkdown(input.markdown);
  const reactions = validateReactionChanges(input.addedReactions, input.removedReactions);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  // What the answer needs from content and identity is read before the commit (the caller too, who
  // may resolve or react): once the change is saved, nothing may fail.
  const sources = await readCommentSources(em, deps, scope, [await findComment(em.fork(), scope, input.commentId)], [scope.caller.userId]);
  const comment = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findComment(tx, scope, input.commentId, { lock: true });
    if (input.resolved !== undefined || hasReactionChanges(reactions)) requireComment(scope);
    if (markdown !== undefined) requireManage(scope, comment.authorId, "comment");
    const changedFields = await applyPostEdit(tx, comment, comment, scope.caller.userId, { markdown, reactions }, deps.clock());
    if (changedFields.length > 0) {
      recordEvent(tx, commentUpdated, {
        organizationId: comment.organizationId,
        actor: scope.caller,
        payload: await spaceEventPayload(tx, comment.spaceId, { commentId: comment.id, changeRequestId: comment.changeRequestId, changedFields }),
      });
    }
    if (input.resolved !== undefined) await recordResolution(tx, deps, scope.caller, comment, input.resolved);
    return comment;
  });
  const [view] = await commentViews(em, deps, scope, [comment], input.format, sources);
  return view!;
}
