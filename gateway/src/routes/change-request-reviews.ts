import { CommentFormat } from "@imprint/proto/collaboration/v1/comments";
import { z } from "zod";
import {
  REVIEW_STATUS_NAMES,
  reviewsLocation,
  toProtoReviewStatus,
  toRestContributors,
  toRestRequestedReviewers,
  toRestReview,
  toRestReviews,
} from "../mappers/review.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

/**
 * Reviews of a change request (GitBook's change-request-reviewers, change-requests-reviews and
 * change-request-contributors): thin over collaboration's ChangeRequestReviewService, which checks
 * who may ask and review and what a review may be. `changeRequestId` is its id or its number.
 */
const changeRequestParams = z.object({ spaceId: pathId(), changeRequestId: pathId() });
const reviewerParams = changeRequestParams.extend({ userId: pathId() });
const reviewParams = changeRequestParams.extend({ reviewId: pathId() });

const FORMAT_BY_NAME = { document: CommentFormat.COMMENT_FORMAT_DOCUMENT, markdown: CommentFormat.COMMENT_FORMAT_MARKDOWN } as const;
const formatShape = { format: z.enum(["document", "markdown"]).optional() };

/** GitBook's JSON document, checked for shape only (collaboration reads its nodes). */
const jsonDocument = z.looseObject({
  object: z.literal("document", { error: 'must be "document"' }),
  nodes: z.array(z.unknown(), { error: "must be an array" }),
});

/** requestReviewersForChangeRequest: `description` is GitBook's JSON document. */
export const requestReviewersBody = z.object({
  users: z.array(pathId()),
  subject: z.string().optional(),
  description: jsonDocument.optional(),
});

/** submitChangeRequestReview: `comment` is one of GitBook's document forms (markdown, JSON document, or empty). */
export const submitReviewBody = z.object({
  status: z.enum(REVIEW_STATUS_NAMES),
  comment: z
    .union([z.strictObject({ markdown: z.string() }), z.strictObject({ document: jsonDocument }), z.strictObject({})], {
      error: "must be {markdown}, {document} or {}",
    })
    .optional(),
});

export const listReviewsQuery = z.object({ ...pageQueryShape, ...formatShape, outdated: queryParam.boolean().optional() });

export function changeRequestReviewRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const reviews = upstreams.collaboration.reviews;
  const base = "/v1/spaces/:spaceId/change-requests/:changeRequestId";
  return [
    // getRequestedReviewersByChangeRequestId
    defineRoute({
      method: "GET",
      path: `${base}/requested-reviewers`,
      params: changeRequestParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await reviews.listRequestedReviewers({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(toPagedList(toRestRequestedReviewers(response.reviewers, urls), response.page, cursors));
      },
    }),

    // requestReviewersForChangeRequest: 200 with the requests made, as GitBook answers.
    defineRoute({
      method: "POST",
      path: `${base}/requested-reviewers`,
      params: changeRequestParams,
      body: requestReviewersBody,
      handler: async ({ params, body, principal }) => {
        const response = await reviews.requestReviewers({
          caller: principal.caller,
          ...params,
          userIds: body.users,
          setSubject: body.subject !== undefined,
          subject: body.subject ?? "",
          setDescription: body.description !== undefined,
          description: "",
          descriptionDocumentJson: body.description === undefined ? "" : JSON.stringify(body.description),
        });
        return ok({ users: toRestRequestedReviewers(response.reviewers, urls) });
      },
    }),

    // removeRequestedReviewerFromChangeRequest: 205 when removed, 204 when the user was not asked.
    defineRoute({
      method: "DELETE",
      path: `${base}/requested-reviewers/:userId`,
      params: reviewerParams,
      handler: async ({ params, principal }) => {
        const response = await reviews.removeRequestedReviewer({ caller: principal.caller, ...params });
        return response.removed ? resetContent() : noContent();
      },
    }),

    // getReviewsByChangeRequestId
    defineRoute({
      method: "GET",
      path: `${base}/reviews`,
      params: changeRequestParams,
      query: listReviewsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await reviews.listReviews({
          caller: principal.caller,
          ...params,
          outdated: query.outdated,
          format: FORMAT_BY_NAME[query.format ?? "document"],
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(toRestReviews(response.reviews, urls), response.page, cursors));
      },
    }),

    // submitChangeRequestReview: 201 with the review and its Location.
    defineRoute({
      method: "POST",
      path: `${base}/reviews`,
      params: changeRequestParams,
      body: submitReviewBody,
      handler: async ({ params, body, principal }) => {
        const comment = body.comment ?? {};
        const response = await reviews.submitReview({
          caller: principal.caller,
          ...params,
          status: toProtoReviewStatus(body.status),
          commentMarkdown: "markdown" in comment ? comment.markdown : "",
          commentDocumentJson: "document" in comment ? JSON.stringify(comment.document) : "",
          format: CommentFormat.COMMENT_FORMAT_DOCUMENT,
        });
        const review = toRestReview(response.review, urls);
        return created(
          review,
          `${reviewsLocation(urls, response.review!.spaceId, response.review!.changeRequestId)}/${encodeURIComponent(response.review!.id)}`,
        );
      },
    }),

    // getChangeRequestReviewById
    defineRoute({
      method: "GET",
      path: `${base}/reviews/:reviewId`,
      params: reviewParams,
      query: z.object(formatShape),
      handler: async ({ params, query, principal }) => {
        const response = await reviews.getReview({ caller: principal.caller, ...params, format: FORMAT_BY_NAME[query.format ?? "document"] });
        return ok(toRestReview(response.review, urls));
      },
    }),

    // getContributorsByChangeRequestId: every contributor in one page.
    defineRoute({
      method: "GET",
      path: `${base}/contributors`,
      params: changeRequestParams,
      handler: async ({ params, principal, cursors }) => {
        const response = await reviews.listContributors({ caller: principal.caller, ...params });
        const items = toRestContributors(response.contributors, urls);
        return ok(toPagedList(items, { nextPageToken: "", totalCount: items.length }, cursors));
      },
    }),
  ];
}
