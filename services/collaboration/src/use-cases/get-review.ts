import type { EntityManager } from "@mikro-orm/postgresql";
import { findOwned } from "@imprint/runtime";
import { Review } from "../domain/review.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { BodyFormat } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { reviewViews, type ReviewView } from "./shared/review-views.js";

export interface GetReviewInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  reviewId: string;
  format: BodyFormat;
}

/** One review of the change request; another change request's review is "Review not found". */
export async function getReview(em: EntityManager, input: GetReviewInput, deps: UseCaseDeps): Promise<ReviewView> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const changeRequest = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  const review = await findOwned(em, Review, { changeRequestId: changeRequest.id }, input.reviewId);
  const [view] = await reviewViews(em, deps, { caller, space, changeRequest }, [review], input.format);
  return view!;
}
