import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { ChangeRequest } from "./change-request.js";

export const REVIEW_STATUSES = ["approved", "changes-requested"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Users one request may ask at once. */
export const REVIEWERS_PER_REQUEST_MAX = 50;

/**
 * A user asked to review a change request, once per user: asking again moves `requestedAt` and
 * the revision (and makes their earlier reviews outdated).
 */
export const RequestedReviewerSchema = defineEntity({
  name: "RequestedReviewer",
  tableName: "change_request_reviewers",
  properties: {
    changeRequestId: p.uuid().primary(),
    userId: p.uuid().primary(),
    spaceId: p.uuid(),
    requestedBy: p.uuid(),
    /** The change request's revision when they were (last) asked. */
    revisionId: p.string().length(64),
    requestedAt: p.datetime(),
  },
  indexes: [
    { properties: ["changeRequestId", "requestedAt", "userId"], name: "change_request_reviewers_requested_at_index" },
    { properties: ["spaceId", "userId"], name: "change_request_reviewers_space_user_index" },
  ],
});
export class RequestedReviewer extends RequestedReviewerSchema.class {}
RequestedReviewerSchema.setClass(RequestedReviewer);

/**
 * A review of a change request's revision: approved or changes requested, with the comment it
 * was submitted with (a comment of the change request's thread). A reviewer's newer review, or a
 * newer request to review, makes it outdated: only current reviews count for the merge rules.
 */
export const ReviewSchema = defineEntity({
  name: "Review",
  tableName: "change_request_reviews",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    changeRequestId: p.uuid(),
    spaceId: p.uuid(),
    organizationId: p.uuid(),
    reviewerId: p.uuid(),
    /** Who had asked the reviewer; null when they reviewed unasked. */
    requestedBy: p.uuid().nullable(),
    status: p.enum(REVIEW_STATUSES),
    revisionId: p.string().length(64),
    outdated: p.boolean().default(false),
    commentId: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [
    { properties: ["changeRequestId", "createdAt", "id"], name: "change_request_reviews_created_at_index" },
    { properties: ["changeRequestId", "reviewerId"], name: "change_request_reviews_reviewer_index" },
    { properties: ["spaceId"], name: "change_request_reviews_space_index" },
  ],
});
export class Review extends ReviewSchema.class {
  /** Superseded by a newer review of the same reviewer or a new request to review; false when it already was. */
  markOutdated(now: Date): boolean {
    if (this.outdated) return false;
    this.outdated = true;
    this.updatedAt = now;
    return true;
  }
}
ReviewSchema.setClass(Review);

/** Reviewers are asked while a change request can still change: not once merged, not while archived. */
export function assertReviewable(changeRequest: Pick<ChangeRequest, "status">, action: string): void {
  if (changeRequest.status === "merged") throw new AppError("failed_precondition", `Change request is merged: it can no longer ${action}`);
  if (changeRequest.status === "archived")
    throw new AppError("failed_precondition", `Change request is archived: reopen it (status open or draft) before it can ${action}`);
}

/** Its author asks for reviews: they are never asked to review, and never review (approve) it themselves. */
export function assertNotAuthor(changeRequest: Pick<ChangeRequest, "createdBy">, userId: string, as: "reviewer" | "asked"): void {
  if (changeRequest.createdBy !== userId) return;
  if (as === "asked") throw AppError.invalidArgument(`users: "${userId}" is the change request's author, who cannot review (approve) it`);
  throw AppError.permissionDenied("You are the change request's author: an author cannot review (approve) their own change request");
}

/** The users one request asks: 1 to 50 ids, duplicates counted once, in request order. */
export function validateReviewerIds(userIds: readonly string[], isId: (value: string) => boolean): string[] {
  const distinct = [...new Set(userIds.map((id) => id.toLowerCase()))];
  if (distinct.length === 0) throw AppError.invalidArgument("users: must name at least one user");
  if (distinct.length > REVIEWERS_PER_REQUEST_MAX) throw AppError.invalidArgument(`users: at most ${REVIEWERS_PER_REQUEST_MAX} users at once`);
  const invalid = distinct.find((id) => !isId(id));
  if (invalid !== undefined) throw AppError.invalidArgument(`users: "${invalid}" is not a user id`);
  return distinct;
}
