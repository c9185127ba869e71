import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { RequestedReviewer } from "../domain/review.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { requestedReviewerViews, type RequestedReviewerView } from "./shared/review-views.js";

export interface ListRequestedReviewersInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  page: PageRequestLike | undefined;
}

/** One page of the users asked to review a change request, in the order they were (last) asked; users asked at once by id. */
export async function listRequestedReviewers(em: EntityManager, input: ListRequestedReviewersInput, deps: UseCaseDeps): Promise<Page<RequestedReviewerView>> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const changeRequest = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  const page = await findPage(
    em,
    RequestedReviewer,
    { changeRequestId: changeRequest.id },
    { fields: ["requestedAt", "userId"], direction: "asc", dateFields: ["requestedAt"] },
    input.page,
  );
  return { ...page, items: await requestedReviewerViews(deps, page.items) };
}
