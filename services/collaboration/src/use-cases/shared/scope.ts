import { type EntityManager } from "@mikro-orm/postgresql";
import type { ContentRef } from "@imprint/proto/content/v1/revisions";
import { AppError, findOwned } from "@imprint/runtime";
import type { ChangeRequest } from "../../domain/change-request.js";
import { Comment, CommentReply, postPermissions as postPermissionsFor } from "../../domain/comment.js";
import { requireCaller, requireSpace, type CallerInput, type SpaceAccess, type SpaceRight } from "./access.js";
import { findChangeRequest } from "./change-requests.js";
import type { UseCaseDeps } from "../../deps.js";

/** Where comments live: a space's own content, or one of its change requests. */
export interface CommentScopeInput {
  spaceId: string;
  /** Id or number; empty for the space's own comments. */
  changeRequestId: string;
}

export interface CommentScope {
  caller: CallerInput;
  space: SpaceAccess;
  /** Null for the space's own comments. */
  changeRequest: ChangeRequest | null;
}

/** The scope, once the caller's right `need` on its space is checked and its change request found. */
export async function resolveScope(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content">,
  callerInput: CallerInput | undefined,
  scope: CommentScopeInput | undefined,
  need: SpaceRight,
): Promise<CommentScope> {
  const caller = requireCaller(callerInput);
  const space = await requireSpace(deps, caller, scope?.spaceId ?? "", need);
  const changeRequest = scope?.changeRequestId ? await findChangeRequest(em, space.spaceId, scope.changeRequestId) : null;
  return { caller, space, changeRequest };
}

/** The scope's content, for reads from content (pages of the space, or of the change request's branch). */
export function contentRefOf(scope: CommentScope): ContentRef {
  return { spaceId: scope.space.spaceId, changeRequestId: scope.changeRequest?.id ?? "", revisionId: "" };
}

/** The filter selecting the scope's rows (comments or replies). */
export function scopeFilter(scope: CommentScope): { spaceId: string; changeRequestId: string | null } {
  return { spaceId: scope.space.spaceId, changeRequestId: scope.changeRequest?.id ?? null };
}

/** A comment of the scope; a comment of another space or change request is "Comment not found". */
export async function findComment(em: EntityManager, scope: CommentScope, commentId: string, options: { lock?: boolean } = {}): Promise<Comment> {
  return findOwned(em, Comment, scopeFilter(scope), commentId, options);
}

/** A reply of the comment. */
export async function findReply(em: EntityManager, comment: Comment, replyId: string, options: { lock?: boolean } = {}): Promise<CommentReply> {
  return findOwned(em, CommentReply, { commentId: comment.id }, replyId, options);
}

/** What the caller may do with a comment or reply by `authorId`: authors edit and delete their own, space admins any. */
export function postPermissions(scope: CommentScope, authorId: string): { view: boolean; edit: boolean; reply: boolean; delete: boolean } {
  return postPermissionsFor(scope.space.permissions, scope.caller.userId, authorId);
}

/** Editing or deleting a post: its author (still allowed to comment) or a space admin. */
export function requireManage(scope: CommentScope, authorId: string, what: "comment" | "reply"): void {
  if (!postPermissions(scope, authorId).edit) throw AppError.permissionDenied(`Only the author of this ${what} or a space admin can change or delete it`);
}

/** Commenting actions (posting, reacting, resolving) need the comment right. */
export function requireComment(scope: CommentScope): void {
  if (!scope.space.permissions.comment) throw AppError.permissionDenied(`You need the "comment" permission on this space`);
}
