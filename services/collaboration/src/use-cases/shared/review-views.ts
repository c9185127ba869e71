import type { EntityManager } from "@mikro-orm/postgresql";
import type { User } from "@imprint/proto/identity/v1";
import { Comment } from "../../domain/comment.js";
import type { RequestedReviewer, Review } from "../../domain/review.js";
import type { UseCaseDeps } from "../../deps.js";
import { commentViews, type BodyFormat, type CommentView } from "./comment-views.js";
import type { CommentScope } from "./scope.js";
import { loadUsers, withMissingUsers } from "./users.js";

/** A user asked to review, with the users it names (absent when they no longer exist). */
export interface RequestedReviewerView {
  request: RequestedReviewer;
  user: User | undefined;
  requestedBy: User | undefined;
}

/** A review, with its reviewer, who asked them, and the comment it was submitted with. */
export interface ReviewView {
  review: Review;
  reviewer: User | undefined;
  requestedBy: User | undefined;
  comment: CommentView | undefined;
}

/**
 * Views of requested reviewers: one BatchGetUsers. A write passes the users it read before its
 * commit (`known`): then identity is asked only, on a best effort, for one it lacks.
 */
export async function requestedReviewerViews(
  deps: Pick<UseCaseDeps, "identity">,
  requests: RequestedReviewer[],
  known?: ReadonlyMap<string, User>,
): Promise<RequestedReviewerView[]> {
  const ids = requests.flatMap((request) => [request.userId, request.requestedBy]);
  const users = known ? await withMissingUsers(deps, known, ids) : await loadUsers(deps, ids);
  return requests.map((request) => ({ request, user: users.get(request.userId), requestedBy: users.get(request.requestedBy) }));
}

/**
 * Views of reviews of the scope's change request, for one answer: their comments (one query, then
 * the comment views' own reads) and one BatchGetUsers, whatever the number of reviews. A write
 * passes the users and the comment views it holds.
 */
export async function reviewViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  scope: CommentScope,
  reviews: Review[],
  format: BodyFormat,
  known?: { users: ReadonlyMap<string, User>; comments: readonly CommentView[] },
): Promise<ReviewView[]> {
  if (reviews.length === 0) return [];
  const commentIds = reviews.flatMap((review) => (review.commentId ? [review.commentId] : []));
  const comments =
    known?.comments ??
    (commentIds.length === 0
      ? []
      : await commentViews(em, deps, scope, await em.find(Comment, { id: { $in: commentIds }, spaceId: scope.space.spaceId }), format));
  const commentById = new Map(comments.map((view) => [view.comment.id, view]));
  const ids = reviews.flatMap((review) => [review.reviewerId, review.requestedBy]);
  const users = known ? await withMissingUsers(deps, known.users, ids) : await loadUsers(deps, ids);
  return reviews.map((review) => ({
    review,
    reviewer: users.get(review.reviewerId),
    requestedBy: review.requestedBy ? users.get(review.requestedBy) : undefined,
    // A comment deleted since is no longer shown with its review.
    comment: review.commentId ? commentById.get(review.commentId) : undefined,
  }));
}
