import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { EMOJI_MAX, MARKDOWN_MAX, Reaction } from "../../domain/comment.js";
import { characterCount } from "./change-requests.js";

/** Bodies of comments and replies: 1 to 10,000 characters, not only whitespace. */
export function validateMarkdown(markdown: string): string {
  if (markdown.trim() === "") throw AppError.invalidArgument("markdown: must not be empty");
  if (characterCount(markdown) > MARKDOWN_MAX) throw AppError.invalidArgument(`markdown: must be at most ${MARKDOWN_MAX.toLocaleString("en")} characters`);
  return markdown;
}

function validateEmojis(field: string, emojis: readonly string[]): string[] {
  for (const emoji of emojis) {
    const length = characterCount(emoji);
    if (length < 1 || length > EMOJI_MAX) throw AppError.invalidArgument(`${field}: each emoji must be 1 to ${EMOJI_MAX} characters`);
  }
  return [...new Set(emojis)];
}

export interface ReactionChanges {
  added: string[];
  removed: string[];
}

export function validateReactionChanges(added: readonly string[], removed: readonly string[]): ReactionChanges {
  return { added: validateEmojis("addedReactions", added), removed: validateEmojis("removedReactions", removed) };
}

export function hasReactionChanges(changes: ReactionChanges): boolean {
  return changes.added.length > 0 || changes.removed.length > 0;
}

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
    const inserted = await em.execute<{ affectedRows?: number }>(
      `insert into reactions (target_id, emoji, user_id, comment_id, space_id, reacted_at) values (?, ?, ?, ?, ?, ?)
       on conflict (target_id, emoji, user_id) do nothing`,
      [target.targetId, emoji, userId, target.commentId, target.spaceId, now],
      "run",
    );
    if ((inserted.affectedRows ?? 0) > 0) changed = true;
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
  if (edit.markdown !== undefined && edit.markdown !== post.markdown) {
    post.markdown = edit.markdown;
    post.editedAt = now;
    changedFields.push("body");
  }
  if (await applyReactionChanges(em, { targetId: post.id, commentId: comment.id, spaceId: comment.spaceId }, userId, edit.reactions, now)) {
    changedFields.push("reactions");
  }
  return changedFields;
}
