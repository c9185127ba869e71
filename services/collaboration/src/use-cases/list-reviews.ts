import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { Review } from "../domain/review.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { BodyFormat } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { reviewViews, type ReviewView } from "./shared/review-views.js";

export interface ListReviewsInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  /** Only outdated (true) or current (false) reviews; undefined for all. */
  outdated: boolean | undefined;
  format: BodyFormat;
  page: PageRequestLike | undefined;
}

/** One page of a change request's reviews, oldest first. */
export async function listReviews(em: EntityManager, input: ListReviewsInput, deps: UseCaseDeps): Promise<Page<ReviewView>> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const changeRequest = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  const where: FilterQuery<Review> =
    input.outdated === undefined ? { changeRequestId: changeRequest.id } : { changeRequestId: changeRequest.id, outdated: input.outdated };
  const page = await findPage(em, Review, where, { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] }, input.page);
  return { ...page, items: await reviewViews(em, deps, { caller, space, changeRequest }, page.items, input.format) };
}
