import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type Clock } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const MARKDOWN_MAX = 10_000;
export const NODE_PREVIEW_MAX = 200;
export const NODE_ID_MAX = 255;
export const EMOJI_MAX = 50;
/** Emojis one update may add (and, separately, remove). */
export const REACTION_CHANGES_MAX = 100;

/**
 * The page a comment was posted on, as it was then. Reads show the page as it is now in the
 * comment's content and fall back to this when the page is gone.
 */
export interface PageSnapshot {
  title: string;
  emoji: string;
  icon: string;
  path: string;
  createdAt: string | null;
  updatedAt: string | null;
}

/**
 * A comment on a space's content (changeRequestId null) or on a change request's, optionally on
 * a page and a node of its document. `repliesCount` is kept with each reply posted or deleted.
 */
export const CommentSchema = defineEntity({
  name: "Comment",
  tableName: "comments",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    spaceId: p.uuid(),
    changeRequestId: p.uuid().nullable(),
    organizationId: p.uuid(),
    pageId: p.string().length(64).nullable(),
    nodeId: p.string().length(NODE_ID_MAX).nullable(),
    nodePreview: p.string().length(NODE_PREVIEW_MAX).nullable(),
    /** The revision the comment was posted on (null only for content without any revision). */
    revisionId: p.string().length(64).nullable(),
    page: p.json<PageSnapshot>().nullable(),
    authorId: p.uuid(),
    markdown: p.text(),
    postedAt: p.datetime(),
    editedAt: p.datetime().nullable(),
    resolvedAt: p.datetime().nullable(),
    resolvedBy: p.uuid().nullable(),
    repliesCount: p.integer().default(0),
  },
  indexes: [
    { properties: ["spaceId", "changeRequestId", "postedAt", "id"], name: "comments_scope_posted_at_index" },
    { properties: ["spaceId", "changeRequestId", "pageId", "postedAt", "id"], name: "comments_scope_page_index" },
    { properties: ["spaceId", "changeRequestId", "authorId", "postedAt", "id"], name: "comments_scope_author_index" },
    { properties: ["spaceId", "changeRequestId", "resolvedAt", "postedAt", "id"], name: "comments_scope_resolved_index" },
  ],
});
export class Comment extends CommentSchema.class {
  isResolved(): boolean {
    return this.resolvedAt !== null && this.resolvedAt !== undefined;
  }

  /** Resolves the thread (by `userId`, at the clock's time) or reopens it; false when it already is that way. */
  setResolved(resolved: boolean, userId: string, clock: Clock): boolean {
    if (resolved === this.isResolved()) return false;
    this.resolvedAt = resolved ? clock() : null;
    this.resolvedBy = resolved ? userId : null;
    return true;
  }

  /** The thread's reply count follows each reply posted or deleted. */
  replyAdded(): void {
    this.repliesCount += 1;
  }

  replyRemoved(): void {
    this.repliesCount = Math.max(0, this.repliesCount - 1);
  }
}
CommentSchema.setClass(Comment);

/** A reply in a comment's thread; it lives and dies with its comment. */
export const CommentReplySchema = defineEntity({
  name: "CommentReply",
  tableName: "comment_replies",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    commentId: p.uuid(),
    spaceId: p.uuid(),
    changeRequestId: p.uuid().nullable(),
    organizationId: p.uuid(),
    authorId: p.uuid(),
    markdown: p.text(),
    postedAt: p.datetime(),
    editedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ["commentId", "postedAt", "id"], name: "comment_replies_comment_posted_at_index" },
    { properties: ["spaceId", "changeRequestId", "postedAt"], name: "comment_replies_scope_posted_at_index" },
  ],
});
export class CommentReply extends CommentReplySchema.class {}
CommentReplySchema.setClass(CommentReply);

/** One user's emoji on a comment or a reply (`targetId`); `commentId` is the thread's comment. */
export const ReactionSchema = defineEntity({
  name: "Reaction",
  tableName: "reactions",
  properties: {
    targetId: p.uuid().primary(),
    emoji: p.string().length(EMOJI_MAX).primary(),
    userId: p.uuid().primary(),
    commentId: p.uuid(),
    spaceId: p.uuid(),
    reactedAt: p.datetime(),
  },
  indexes: [
    { properties: ["commentId"], name: "reactions_comment_index" },
    { properties: ["spaceId"], name: "reactions_space_index" },
  ],
});
export class Reaction extends ReactionSchema.class {}
ReactionSchema.setClass(Reaction);

/** Bodies of comments and replies: 1 to 10,000 characters, not only whitespace. */
export function validateMarkdown(markdown: string): string {
  if (markdown.trim() === "") throw AppError.invalidArgument("markdown: must not be empty");
  if (characterCount(markdown) > MARKDOWN_MAX) throw AppError.invalidArgument(`markdown: must be at most ${MARKDOWN_MAX.toLocaleString("en")} characters`);
  return markdown;
}

function validateEmojis(field: string, emojis: readonly string[]): string[] {
  if (emojis.length > REACTION_CHANGES_MAX) throw AppError.invalidArgument(`${field}: must contain at most ${REACTION_CHANGES_MAX} items`);
  for (const emoji of emojis) {
    const length = characterCount(emoji);
    if (length < 1 || length > EMOJI_MAX) throw AppError.invalidArgument(`${field}: each emoji must be 1 to ${EMOJI_MAX} characters`);
  }
  return [...new Set(emojis)];
}

/** The emojis a caller adds to and removes from a comment or reply, validated and without duplicates. */
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

/** Replaces the body of a comment or reply at `now`; a body equal to the current one is no change (false). */
export function editBody(post: { markdown: string; editedAt?: Date | null }, markdown: string, now: Date): boolean {
  if (markdown === post.markdown) return false;
  post.markdown = markdown;
  post.editedAt = now;
  return true;
}

/**
 * What a caller with the space rights `rights` may do with a comment or reply by `authorId`:
 * authors edit and delete their own while they may comment, space admins any.
 */
export function postPermissions(
  rights: { comment: boolean; admin: boolean },
  callerId: string,
  authorId: string,
): { view: boolean; edit: boolean; reply: boolean; delete: boolean } {
  const manage = (authorId === callerId && rights.comment) || rights.admin;
  return { view: true, edit: manage, reply: rights.comment, delete: manage };
}
