import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, sql } from "@imprint/runtime";
import { editBody, Reaction, type ReactionChanges } from "../../domain/comment.js";

/**
 * Applies the caller's reaction changes to a comment or reply (in the caller's transaction).
 * Adding an emoji twice or removing one never added changes nothing. Answers whether anything changed.
 */
async function applyReactionChanges(
  em: EntityManager,
  target: { targetId: string; commentId: string; spaceId: string },
  userId: string,
  changes: ReactionChanges,
  now: Date,
): Promise<boolean> {
  let changed = false;
  for (const emoji of changes.added) {
    const inserted = await executeStatement(
      em,
      sql`insert into reactions (target_id, emoji, user_id, comment_id, space_id, reacted_at) values (${target.targetId}, ${emoji}, ${userId}, ${target.commentId}, ${target.spaceId}, ${now})
       on conflict (target_id, emoji, user_id) do nothing`,
    );
    if (inserted > 0) changed = true;
  }
  if (changes.removed.length > 0) {
    const removed = await em.nativeDelete(Reaction, { targetId: target.targetId, userId, emoji: { $in: changes.removed } });
    if (removed > 0) changed = true;
  }
  return changed;
}

/** The edit a caller asks of a comment or reply: a validated body (undefined leaves it) and reaction changes. */
export interface PostEdit {
  markdown: string | undefined;
  reactions: ReactionChanges;
}

/**
 * Applies an edit to a comment or reply (in the caller's transaction; rights are checked before).
 * A body equal to the current one is no change. Answers the changed fields for the `updated` event.
 */
export async function applyPostEdit(
  em: EntityManager,
  post: { id: string; markdown: string; editedAt?: Date | null },
  comment: { id: string; spaceId: string },
  userId: string,
  edit: PostEdit,
  now: Date,
): Promise<string[]> {
  const changedFields: string[] = [];
  if (edit.markdown !== undefined && editBody(post, edit.markdown, now)) changedFields.push("body");
  if (await applyReactionChanges(em, { targetId: post.id, commentId: comment.id, spaceId: comment.spaceId }, userId, edit.reactions, now)) {
    changedFields.push("reactions");
  }
  return changedFields;
}
