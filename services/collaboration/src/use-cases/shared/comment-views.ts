import type { EntityManager } from "@mikro-orm/postgresql";
import type { PageSummary } from "@imprint/proto/content/v1/revisions";
import type { User } from "@imprint/proto/identity/v1";
import { markdownToDocument } from "@imprint/document";
import { queryRows, sql, toDate } from "@imprint/runtime";
import { Reaction, type Comment, type CommentReply } from "../../domain/comment.js";
import { callerMessage } from "./access.js";
import type { UseCaseDeps } from "../../deps.js";
import { contentRefOf, postPermissions, type CommentScope } from "./scope.js";
import { loadUsers, withMissingUsers } from "./users.js";

export type BodyFormat = "document" | "markdown";

export interface PostBody {
  markdown: string;
  /** JSON text of the GitBook document; empty when only markdown was asked for. */
  documentJson: string;
}

export interface ReactionView {
  emoji: string;
  users: { userId: string; reactedAt: Date }[];
}

export interface PostPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

/** The page a comment is on, as it is now in the comment's content (or its snapshot when gone). */
export interface CommentPageView {
  id: string;
  title: string;
  emoji: string;
  icon: string;
  path: string;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
  outdated: boolean;
}

/** Someone who replied to a comment. */
export interface ReplierView {
  userId: string;
  count: number;
  lastRepliedAt: Date;
}

export interface CommentView {
  comment: Comment;
  /** Who replied, in order of their first reply. */
  repliers: ReplierView[];
  body: PostBody;
  reactions: ReactionView[];
  page: CommentPageView | undefined;
  permissions: PostPermissions;
  changeRequestNumber: number;
  /** Users named by the comment (author, resolver, reactions), shared by the views of one answer. */
  users: ReadonlyMap<string, User>;
}

export interface ReplyView {
  reply: CommentReply;
  body: PostBody;
  reactions: ReactionView[];
  permissions: PostPermissions;
  users: ReadonlyMap<string, User>;
}

export function bodyOf(markdown: string, format: BodyFormat): PostBody {
  return { markdown, documentJson: format === "document" ? JSON.stringify(markdownToDocument(markdown)) : "" };
}

/** Reactions of the targets, by target, each grouped by emoji in order of first reaction. */
async function reactionsOf(em: EntityManager, targetIds: string[]): Promise<Map<string, ReactionView[]>> {
  const byTarget = new Map<string, ReactionView[]>();
  if (targetIds.length === 0) return byTarget;
  const rows = await em.find(Reaction, { targetId: { $in: targetIds } }, { orderBy: { reactedAt: "asc", userId: "asc" } });
  for (const row of rows) {
    const reactions = byTarget.get(row.targetId) ?? [];
    byTarget.set(row.targetId, reactions);
    let emoji = reactions.find((reaction) => reaction.emoji === row.emoji);
    if (!emoji) reactions.push((emoji = { emoji: row.emoji, users: [] }));
    emoji.users.push({ userId: row.userId, reactedAt: row.reactedAt });
  }
  return byTarget;
}

/** Repliers of each comment, in one grouped query. */
async function repliersOf(em: EntityManager, comments: Comment[]): Promise<Map<string, ReplierView[]>> {
  const byComment = new Map<string, ReplierView[]>();
  const ids = comments.filter((comment) => comment.repliesCount > 0).map((comment) => comment.id);
  if (ids.length === 0) return byComment;
  const rows = await queryRows(
    em,
    sql<{
      comment_id: string;
      author_id: string;
      count: string;
      last_replied_at: Date | string;
    }>`select comment_id, author_id, count(*) as count, max(posted_at) as last_replied_at from comment_replies
      where comment_id in (${sql.join(ids)})
      group by comment_id, author_id
      order by comment_id, min(posted_at), author_id`,
  );
  for (const row of rows) {
    const repliers = byComment.get(row.comment_id) ?? [];
    byComment.set(row.comment_id, repliers);
    repliers.push({ userId: row.author_id, count: Number(row.count), lastRepliedAt: toDate(row.last_replied_at) });
  }
  return byComment;
}

function userIdsOf(reactions: Iterable<ReactionView[]>): string[] {
  return [...reactions].flatMap((list) => list.flatMap((reaction) => reaction.users.map((user) => user.userId)));
}

function pageView(comment: Comment, current: PageSummary | undefined): CommentPageView | undefined {
  if (!comment.pageId) return undefined;
  if (current) {
    const { id, title, emoji, icon, path, createdAt, updatedAt } = current;
    return { id, title, emoji, icon, path, createdAt, updatedAt, outdated: updatedAt !== undefined && updatedAt > comment.postedAt };
  }
  const snapshot = comment.page;
  return {
    id: comment.pageId,
    title: snapshot?.title ?? "",
    emoji: snapshot?.emoji ?? "",
    icon: snapshot?.icon ?? "",
    path: snapshot?.path ?? "",
    createdAt: snapshot?.createdAt ? new Date(snapshot.createdAt) : undefined,
    updatedAt: snapshot?.updatedAt ? new Date(snapshot.updatedAt) : undefined,
    outdated: true,
  };
}

/**
 * What comment views need from other services (content's pages, identity's users). A write reads
 * them before it commits (readCommentSources), so that its answer is built without asking anyone
 * once the change is saved: an upstream outage fails the write before it is applied, never after.
 */
export interface CommentSources {
  pages: ReadonlyMap<string, PageSummary>;
  users: ReadonlyMap<string, User>;
}

function commentUserIds(comments: Comment[], reactions: Map<string, ReactionView[]>, repliers: Map<string, ReplierView[]>): (string | null | undefined)[] {
  return [
    ...comments.flatMap((comment) => [comment.authorId, comment.resolvedBy]),
    ...userIdsOf(reactions.values()),
    ...[...repliers.values()].flatMap((list) => list.map((replier) => replier.userId)),
  ];
}

async function readPages(deps: Pick<UseCaseDeps, "content">, scope: CommentScope, comments: Comment[]): Promise<ReadonlyMap<string, PageSummary>> {
  const pageIds = [...new Set(comments.flatMap((comment) => (comment.pageId ? [comment.pageId] : [])))];
  if (pageIds.length === 0) return new Map();
  const { pages } = await deps.content.revisions.batchGetPageSummaries({ caller: callerMessage(scope.caller), ref: contentRefOf(scope), pageIds });
  return new Map(pages.map((page) => [page.id, page]));
}

/**
 * The sources of the views of `comments` as they are now, plus the users `alsoUsers` (e.g. the
 * caller, who may resolve or react in the write about to run). Reads through a fork of `em`.
 */
export async function readCommentSources(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  scope: CommentScope,
  comments: Comment[],
  alsoUsers: readonly string[] = [],
): Promise<CommentSources> {
  const fork = em.fork();
  const [pages, reactions, repliers] = await Promise.all([
    readPages(deps, scope, comments),
    reactionsOf(
      fork,
      comments.map((comment) => comment.id),
    ),
    repliersOf(fork, comments),
  ]);
  const users = await loadUsers(deps, [...commentUserIds(comments, reactions, repliers), ...alsoUsers]);
  return { pages, users };
}

/**
 * Views of comments of one scope, for one answer: one BatchGetPageSummaries for their pages (in
 * the scope's content), one reactions query, one BatchGetUsers, whatever the number of comments.
 * With `sources` (read before a write), nothing is asked of content, and identity only, on a best
 * effort, for users who appeared meanwhile.
 */
export async function commentViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  scope: CommentScope,
  comments: Comment[],
  format: BodyFormat,
  sources?: CommentSources,
): Promise<CommentView[]> {
  if (comments.length === 0) return [];
  const [pageById, reactions, repliers] = await Promise.all([
    sources ? Promise.resolve(sources.pages) : readPages(deps, scope, comments),
    reactionsOf(
      em,
      comments.map((comment) => comment.id),
    ),
    repliersOf(em, comments),
  ]);
  const userIds = commentUserIds(comments, reactions, repliers);
  const users = sources ? await withMissingUsers(deps, sources.users, userIds) : await loadUsers(deps, userIds);
  return comments.map((comment) => ({
    comment,
    repliers: repliers.get(comment.id) ?? [],
    body: bodyOf(comment.markdown, format),
    reactions: reactions.get(comment.id) ?? [],
    page: pageView(comment, comment.pageId ? pageById.get(comment.pageId) : undefined),
    permissions: postPermissions(scope, comment.authorId),
    changeRequestNumber: scope.changeRequest?.number ?? 0,
    users,
  }));
}

function replyUserIds(replies: CommentReply[], reactions: Map<string, ReactionView[]>): string[] {
  return [...replies.map((reply) => reply.authorId), ...userIdsOf(reactions.values())];
}

/** The users the views of `replies` name as they are now, plus `alsoUsers`, read before a write (through a fork of `em`). */
export async function readReplyUsers(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "identity">,
  replies: CommentReply[],
  alsoUsers: readonly string[] = [],
): Promise<ReadonlyMap<string, User>> {
  const reactions = await reactionsOf(
    em.fork(),
    replies.map((reply) => reply.id),
  );
  return loadUsers(deps, [...replyUserIds(replies, reactions), ...alsoUsers]);
}

/**
 * Views of replies of one comment (one reactions query, one BatchGetUsers). With `knownUsers`
 * (read before a write), identity is asked only, on a best effort, for users who appeared meanwhile.
 */
export async function replyViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "identity">,
  scope: CommentScope,
  replies: CommentReply[],
  format: BodyFormat,
  knownUsers?: ReadonlyMap<string, User>,
): Promise<ReplyView[]> {
  if (replies.length === 0) return [];
  const reactions = await reactionsOf(
    em,
    replies.map((reply) => reply.id),
  );
  const userIds = replyUserIds(replies, reactions);
  const users = knownUsers ? await withMissingUsers(deps, knownUsers, userIds) : await loadUsers(deps, userIds);
  return replies.map((reply) => ({
    reply,
    body: bodyOf(reply.markdown, format),
    reactions: reactions.get(reply.id) ?? [],
    permissions: postPermissions(scope, reply.authorId),
    users,
  }));
}
