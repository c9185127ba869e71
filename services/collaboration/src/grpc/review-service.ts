import { ChangeRequestReviewServiceService } from "@imprint/proto/collaboration/v1/reviews";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getReview } from "../use-cases/get-review.js";
import { listContributors } from "../use-cases/list-contributors.js";
import { listRequestedReviewers } from "../use-cases/list-requested-reviewers.js";
import { listReviews } from "../use-cases/list-reviews.js";
import { removeRequestedReviewer } from "../use-cases/remove-requested-reviewer.js";
import { requestReviewers } from "../use-cases/request-reviewers.js";
import { submitReview } from "../use-cases/submit-review.js";
import { contributorToProto, formatFromProto, requestedReviewerToProto, reviewStatusFromProto, reviewToProto } from "./mappers.js";

export const REVIEW_SERVICE_NAME = "imprint.collaboration.v1.ChangeRequestReviewService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function reviewServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof ChangeRequestReviewServiceService> {
  return {
    requestReviewers: async (request) => {
      const views = await requestReviewers(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          userIds: request.userIds,
          subject: request.setSubject ? request.subject : undefined,
          description: request.setDescription ? request.description : undefined,
          descriptionDocumentJson: request.setDescription ? request.descriptionDocumentJson : "",
        },
        deps,
      );
      return { reviewers: views.map(requestedReviewerToProto) };
    },

    listRequestedReviewers: async (request) => {
      const page = await listRequestedReviewers(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, page: pageRequest(request.page) },
        deps,
      );
      return { reviewers: page.items.map(requestedReviewerToProto), page: pageInfo(page) };
    },

    removeRequestedReviewer: async (request) => {
      const removed = await removeRequestedReviewer(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, userId: request.userId },
        deps,
      );
      return { removed };
    },

    submitReview: async (request) => {
      const view = await submitReview(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          status: reviewStatusFromProto(request.status),
          commentMarkdown: request.commentMarkdown,
          commentDocumentJson: request.commentDocumentJson,
          format: formatFromProto(request.format),
        },
        deps,
      );
      return { review: reviewToProto(view) };
    },

    listReviews: async (request) => {
      const page = await listReviews(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          outdated: request.outdated,
          format: formatFromProto(request.format),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { reviews: page.items.map(reviewToProto), page: pageInfo(page) };
    },

    getReview: async (request) => {
      const view = await getReview(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          reviewId: request.reviewId,
          format: formatFromProto(request.format),
        },
        deps,
      );
      return { review: reviewToProto(view) };
    },

    listContributors: async (request) => {
      const views = await listContributors(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      return { contributors: views.map(contributorToProto) };
    },
  };
}
