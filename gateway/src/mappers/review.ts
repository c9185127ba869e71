import { ContributionKind, ReviewStatus, type Contributor, type RequestedReviewer, type Review } from "@imprint/proto/collaboration/v1/reviews";
import { AppError } from "@imprint/runtime/core";
import { changeRequestLocation } from "./change-request.js";
import { toRestComment } from "./comment.js";
import type { PublicUrls } from "./urls.js";
import { toRestUser, type RestUser } from "./user.js";

export const REVIEW_STATUS_NAMES = ["approved", "changes-requested"] as const;
export type ReviewStatusName = (typeof REVIEW_STATUS_NAMES)[number];

const STATUS_BY_NAME: Readonly<Record<ReviewStatusName, ReviewStatus>> = {
  approved: ReviewStatus.REVIEW_STATUS_APPROVED,
  "changes-requested": ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED,
};

export function toProtoReviewStatus(name: ReviewStatusName): ReviewStatus {
  return STATUS_BY_NAME[name];
}

function toRestReviewStatus(status: ReviewStatus): ReviewStatusName {
  const entry = (Object.entries(STATUS_BY_NAME) as [ReviewStatusName, ReviewStatus][]).find(([, value]) => value === status);
  if (!entry) throw new AppError("internal", `upstream answered an unknown review status ${String(status)}`);
  return entry[0];
}

const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

/** GitBook's ChangeRequestRequestedReviewer (users only: Imprint asks no teams). */
export interface RestRequestedReviewer {
  object: "change-request-requested-reviewer";
  kind: "user";
  user: RestUser;
  requestedBy: RestUser;
  revision: string;
  createdAt: string;
}

/** A request naming a user who no longer exists is left out (GitBook's object needs both users). */
export function toRestRequestedReviewers(reviewers: RequestedReviewer[], urls: PublicUrls): RestRequestedReviewer[] {
  return reviewers.flatMap((reviewer) =>
    reviewer.user && reviewer.requestedBy
      ? [
          {
            object: "change-request-requested-reviewer" as const,
            kind: "user" as const,
            user: toRestUser(reviewer.user, urls),
            requestedBy: toRestUser(reviewer.requestedBy, urls),
            revision: reviewer.revisionId,
            createdAt: iso(reviewer.requestedAt),
          },
        ]
      : [],
  );
}

/** API URL of a change request's reviews (also a new review's `Location`, with its id). */
export function reviewsLocation(urls: PublicUrls, spaceId: string, changeRequestId: string): string {
  return `${changeRequestLocation(urls, spaceId, changeRequestId)}/reviews`;
}

/** GitBook's ChangeRequestReview; `comment` only when one was submitted with it (and still exists). */
export function toRestReview(review: Review | undefined, urls: PublicUrls): Record<string, unknown> {
  if (!review) throw new AppError("internal", "upstream answered without a review");
  return {
    object: "change-request-review",
    id: review.id,
    revision: review.revisionId,
    reviewer: toRestUser(review.reviewer, urls),
    ...(review.requestedBy ? { requestedBy: toRestUser(review.requestedBy, urls) } : {}),
    status: toRestReviewStatus(review.status),
    outdated: review.outdated,
    ...(review.comment ? { comment: toRestComment(review.comment, urls) } : {}),
    createdAt: iso(review.createdAt),
    updatedAt: iso(review.updatedAt),
    urls: { location: `${reviewsLocation(urls, review.spaceId, review.changeRequestId)}/${encodeURIComponent(review.id)}` },
  };
}

/** Reviews of a list; one by a user who no longer exists is left out (GitBook's review needs its reviewer). */
export function toRestReviews(reviews: Review[], urls: PublicUrls): Record<string, unknown>[] {
  return reviews.filter((review) => review.reviewer).map((review) => toRestReview(review, urls));
}

/** GitBook's ChangeRequestUserContributor; contributors who no longer exist are left out. */
export function toRestContributors(contributors: Contributor[], urls: PublicUrls): Record<string, unknown>[] {
  return contributors.flatMap((contributor) =>
    contributor.user
      ? [
          {
            user: toRestUser(contributor.user, urls),
            actionType: contributor.kind === ContributionKind.CONTRIBUTION_KIND_COMMENT ? "comment" : "edit",
            count: contributor.count,
            updatedAt: iso(contributor.updatedAt),
          },
        ]
      : [],
  );
}
