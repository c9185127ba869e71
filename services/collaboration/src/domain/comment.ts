import { defineEntity, p } from "@mikro-orm/postgresql";

export const MARKDOWN_MAX = 10_000;
export const NODE_PREVIEW_MAX = 200;
export const NODE_ID_MAX = 255;
export const EMOJI_MAX = 50;

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
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
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
export class Comment extends CommentSchema.class {}
CommentSchema.setClass(Comment);

/** A reply in a comment's thread; it lives and dies with its comment. */
export const CommentReplySchema = defineEntity({
  name: "CommentReply",
  tableName: "comment_replies",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
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
