import type { EntityManager } from "@mikro-orm/postgresql";
import { parseUpdateMask, recordEvent } from "@imprint/runtime";
import { commentUpdated, spaceEventPayload } from "../events.js";
import type { CallerInput } from "./shared/access.js";
import { commentViews, readCommentSources, type BodyFormat, type CommentView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { hasReactionChanges, validateMarkdown, validateReactionChanges } from "../domain/comment.js";
import { applyPostEdit } from "./shared/posts.js";
import { recordResolution } from "./shared/resolution.js";
import { findComment, requireComment, requireManage, resolveScope, type CommentScopeInput } from "./shared/scope.js";

const UPDATABLE_FIELDS = ["resolved", "markdown"] as const;

export interface UpdateCommentInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  /** Field paths, snake_case or camelCase; empty changes no field (the reactions still apply). */
  updateMask: readonly string[] | undefined;
  /** Resolve (true) or reopen (false). */
  resolved: boolean;
  /** New body. */
  markdown: string;
  addedReactions: readonly string[];
  removedReactions: readonly string[];
  format: BodyFormat;
}

/**
 * Changes a comment: its body (author or space admin; `comment.updated`) and its resolution (comment
 * right; `comment.resolved` / `comment.reopened`), those the update mask names, and the caller's reactions (comment right;
 * `comment.updated` with `reactions`). What does not change records nothing.
 */
export async function updateComment(em: EntityManager, input: UpdateCommentInput, deps: UseCaseDeps): Promise<CommentView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const markdown = fields.has("markdown") ? validateMarkdown(input.markdown) : undefined;
  const resolved = fields.has("resolved") ? input.resolved : undefined;
  const reactions = validateReactionChanges(input.addedReactions, input.removedReactions);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  // What the answer needs from content and identity is read before the commit (the caller too, who
  // may resolve or react): once the change is saved, nothing may fail.
  const sources = await readCommentSources(em, deps, scope, [await findComment(em.fork(), scope, input.commentId)], [scope.caller.userId]);
  const comment = await deps.unitOfWork.run(em, async (tx) => {
    const comment = await findComment(tx, scope, input.commentId, { lock: true });
    if (resolved !== undefined || hasReactionChanges(reactions)) requireComment(scope);
    if (markdown !== undefined) requireManage(scope, comment.authorId, "comment");
    const changedFields = await applyPostEdit(tx, comment, comment, scope.caller.userId, { markdown, reactions }, deps.clock());
    if (changedFields.length > 0) {
      recordEvent(tx, commentUpdated, {
        organizationId: comment.organizationId,
        actor: scope.caller,
        payload: await spaceEventPayload(tx, comment.spaceId, { commentId: comment.id, changeRequestId: comment.changeRequestId, changedFields }),
      });
    }
    if (resolved !== undefined) await recordResolution(tx, deps, scope.caller, comment, resolved);
    return comment;
  });
  const [view] = await commentViews(em, deps, scope, [comment], input.format, sources);
  return view!;
}
