import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Comment, validateMarkdown } from "../domain/comment.js";
import { markdownOfDocument } from "../domain/documents.js";
import { assertNotAuthor, assertReviewable, RequestedReviewer, Review, type ReviewStatus } from "../domain/review.js";
import { changeRequestReviewSubmitted, commentCreated, spaceEventPayload } from "../events.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { readBranch } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import { commentViews, type BodyFormat } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { reviewViews, type ReviewView } from "./shared/review-views.js";
import { loadUsers } from "./shared/users.js";

export interface SubmitReviewInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  /** undefined = not a status. */
  status: ReviewStatus | undefined;
  /** "" for no comment. */
  commentMarkdown: string;
  /** The comment as GitBook's JSON document (JSON text); "" to use commentMarkdown. */
  commentDocumentJson: string;
  format: BodyFormat;
}

/**
 * Submits a review of the change request's current revision: by a user with the review right on
 * the space, or one asked to review it (GitBook's rule), never by its author. A comment is posted
 * in the change request's thread with it (`comment.created`). The reviewer's earlier reviews
 * become outdated. Records `change_request.review_submitted`.
 */
export async function submitReview(em: EntityManager, input: SubmitReviewInput, deps: UseCaseDeps): Promise<ReviewView> {
  const caller = requireCaller(input.caller);
  if (!input.status) throw AppError.invalidArgument("status: must be approved or changes-requested");
  const commentMarkdown = input.commentDocumentJson ? markdownOfDocument("comment.document", input.commentDocumentJson) : input.commentMarkdown;
  const markdown = commentMarkdown.trim() === "" ? "" : validateMarkdown(commentMarkdown);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const before = await findChangeRequest(em.fork(), space.spaceId, input.changeRequestId);
  const asked = await em.fork().findOne(RequestedReviewer, { changeRequestId: before.id, userId: caller.userId });
  if (!space.permissions.review && !asked)
    throw AppError.permissionDenied('You need the "review" permission on this space, or to be asked to review this change request');
  assertNotAuthor(before, caller.userId, "reviewer");
  assertReviewable(before, "be reviewed");
  // The revision and the users of the answer are read before the commit: once saved, nothing may fail.
  const [branch, users] = await Promise.all([readBranch(deps, caller, before), loadUsers(deps, [caller.userId, asked?.requestedBy])]);
  const revisionId = branch?.headRevisionId ?? "";

  const { changeRequest, review, comment } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    assertReviewable(found, "be reviewed");
    const now = deps.clock();
    const event = { organizationId: found.organizationId, actor: caller };
    const comment = markdown
      ? tx.create(Comment, {
          spaceId: found.spaceId,
          changeRequestId: found.id,
          organizationId: found.organizationId,
          pageId: null,
          nodeId: null,
          nodePreview: null,
          revisionId: revisionId || null,
          page: null,
          authorId: caller.userId,
          markdown,
          postedAt: now,
          editedAt: null,
          resolvedAt: null,
          resolvedBy: null,
          repliesCount: 0,
        })
      : null;
    if (comment) {
      recordEvent(tx, commentCreated, {
        ...event,
        payload: await spaceEventPayload(tx, found.spaceId, { commentId: comment.id, changeRequestId: found.id, pageId: null }),
      });
    }
    const earlier = await tx.find(Review, { changeRequestId: found.id, reviewerId: caller.userId, outdated: false });
    for (const review of earlier) review.markOutdated(now);
    const request = await tx.findOne(RequestedReviewer, { changeRequestId: found.id, userId: caller.userId });
    const review = tx.create(Review, {
      changeRequestId: found.id,
      spaceId: found.spaceId,
      organizationId: found.organizationId,
      reviewerId: caller.userId,
      requestedBy: request?.requestedBy ?? null,
      status: input.status!,
      revisionId,
      outdated: false,
      commentId: comment?.id ?? null,
      createdAt: now,
      updatedAt: now,
    });
    recordEvent(tx, changeRequestReviewSubmitted, {
      ...event,
      payload: await spaceEventPayload(tx, found.spaceId, {
        changeRequestId: found.id,
        number: found.number,
        reviewId: review.id,
        reviewerId: caller.userId,
        status: review.status,
        revisionId,
        commentId: comment?.id,
      }),
    });
    return { changeRequest: found, review, comment };
  });
  const scope = { caller, space, changeRequest };
  const comments = comment ? await commentViews(em, deps, scope, [comment], input.format, { pages: new Map(), users }) : [];
  const [view] = await reviewViews(em, deps, scope, [review], input.format, { users, comments });
  return view!;
}
