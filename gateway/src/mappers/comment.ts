import {
  CommentStatus,
  type Comment,
  type CommentBody,
  type CommentPermissions,
  type CommentReply,
  type CommentTarget,
  type Reaction,
} from "@imprint/proto/collaboration/v1/comments";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";
import { toRestUser, type RestUser } from "./user.js";

/**
 * GitBook's `Comment` and `CommentReply`. A body is one of GitBook's document forms: `{document}`
 * (the default format) or `{markdown}` (format=markdown), never both (the schema's oneOf).
 */

type RestBody = { markdown: string } | { document: unknown };

export interface RestReaction {
  emoji: string;
  count: number;
  users: { user: RestUser; reactedAt: string }[];
}

const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

function toRestBody(body: CommentBody | undefined): RestBody {
  if (body?.documentJson) return { document: JSON.parse(body.documentJson) as unknown };
  return { markdown: body?.markdown ?? "" };
}

function toRestReactions(reactions: Reaction[], urls: PublicUrls): RestReaction[] {
  return reactions.map((reaction) => {
    // A reacting user who no longer exists is not shown (GitBook's users entries need a user).
    const users = reaction.users.flatMap((entry) => (entry.user ? [{ user: toRestUser(entry.user, urls), reactedAt: iso(entry.reactedAt) }] : []));
    return { emoji: reaction.emoji, count: users.length, users };
  });
}

function toRestPermissions(p: CommentPermissions | undefined): { view: boolean; edit: boolean; reply: boolean; delete: boolean } {
  return { view: p?.view ?? false, edit: p?.edit ?? false, reply: p?.reply ?? false, delete: p?.delete ?? false };
}

function postedBy(user: Comment["postedBy"], urls: PublicUrls): RestUser {
  // The schema requires an author; a comment always has one unless the user was erased upstream.
  if (!user) throw new AppError("internal", "upstream answered a comment without its author");
  return toRestUser(user, urls);
}

/** API URL of the comments under a space (change request id empty) or a change request. */
export function commentsLocation(urls: PublicUrls, spaceId: string, changeRequestId: string): string {
  const space = `${urls.api}/v1/spaces/${encodeURIComponent(spaceId)}`;
  return changeRequestId ? `${space}/change-requests/${encodeURIComponent(changeRequestId)}/comments` : `${space}/comments`;
}

function toRestTarget(target: CommentTarget | undefined, comment: Comment): Record<string, unknown> {
  const page = target?.page;
  return {
    ...(target?.nodeId ? { node: { id: target.nodeId, preview: target.nodePreview } } : {}),
    ...(comment.changeRequestId ? { changeRequest: comment.changeRequestId } : {}),
    ...(page
      ? {
          page: {
            id: page.id,
            title: page.title,
            ...(page.emoji ? { emoji: page.emoji } : {}),
            ...(page.icon ? { icon: page.icon } : {}),
            createdAt: iso(page.createdAt),
            updatedAt: iso(page.updatedAt),
            path: page.path,
            outdated: page.outdated,
          },
        }
      : {}),
    space: comment.spaceId,
    revision: target?.revisionId ?? "",
  };
}

export function toRestComment(comment: Comment | undefined, urls: PublicUrls): Record<string, unknown> {
  if (!comment) throw new AppError("internal", "upstream answered without a comment");
  const resolved = comment.status === CommentStatus.COMMENT_STATUS_RESOLVED;
  return {
    object: "comment",
    id: comment.id,
    postedBy: postedBy(comment.postedBy, urls),
    postedAt: iso(comment.postedAt),
    ...(comment.editedAt ? { editedAt: comment.editedAt.toISOString() } : {}),
    reactions: toRestReactions(comment.reactions, urls),
    replies: comment.replies,
    repliers: comment.repliers.flatMap((replier) =>
      replier.user ? [{ user: toRestUser(replier.user, urls), count: replier.count, updatedAt: iso(replier.lastRepliedAt) }] : [],
    ),
    body: toRestBody(comment.body),
    target: toRestTarget(comment.target, comment),
    urls: { location: `${commentsLocation(urls, comment.spaceId, comment.changeRequestId)}/${encodeURIComponent(comment.id)}` },
    permissions: toRestPermissions(comment.permissions),
    ...(resolved
      ? {
          status: "resolved",
          resolvedAt: iso(comment.resolvedAt),
          ...(comment.resolvedBy ? { resolvedBy: toRestUser(comment.resolvedBy, urls) } : {}),
        }
      : { status: "open" }),
  };
}

export function toRestCommentReply(reply: CommentReply | undefined, urls: PublicUrls): Record<string, unknown> {
  if (!reply) throw new AppError("internal", "upstream answered without a comment reply");
  const comment = `${commentsLocation(urls, reply.spaceId, reply.changeRequestId)}/${encodeURIComponent(reply.commentId)}`;
  return {
    object: "comment-reply",
    id: reply.id,
    postedBy: postedBy(reply.postedBy, urls),
    postedAt: iso(reply.postedAt),
    ...(reply.editedAt ? { editedAt: reply.editedAt.toISOString() } : {}),
    reactions: toRestReactions(reply.reactions, urls),
    body: toRestBody(reply.body),
    urls: { location: `${comment}/replies/${encodeURIComponent(reply.id)}` },
    permissions: toRestPermissions(reply.permissions),
  };
}
