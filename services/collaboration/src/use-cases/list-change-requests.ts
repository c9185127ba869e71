import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { raw } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { ChangeRequest, type ChangeRequestStatus } from "../domain/change-request.js";
import { isId, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestViews, type ChangeRequestView } from "./shared/change-request-views.js";
import type { UseCaseDeps } from "../deps.js";

export type ChangeRequestOrder = "updatedAt" | "createdAt";

export interface ListChangeRequestsInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** Defaults to open. */
  status: ChangeRequestStatus | undefined;
  /** Only those created by this user ("" for anyone). */
  creatorUserId: string;
  /** Only those this user created, edited or merged ("" for anyone). */
  contributorUserId: string;
  /** Only those this user is asked to review ("" for anyone). */
  requestedReviewerUserId: string;
  /** Defaults to updatedAt; always newest first. */
  orderBy: ChangeRequestOrder | undefined;
  page: PageRequestLike | undefined;
}

/** Newest first by either date, the id breaking ties (the per-space and organization lists share them). */
export const CHANGE_REQUEST_SORTS: Record<ChangeRequestOrder, KeysetSort<ChangeRequest>> = {
  updatedAt: { fields: ["updatedAt", "id"], direction: "desc", dateFields: ["updatedAt"] },
  createdAt: { fields: ["createdAt", "id"], direction: "desc", dateFields: ["createdAt"] },
};

/** One page of a space's change requests with one status, on the (space, status, date, id) indexes. */
export async function listChangeRequests(em: EntityManager, input: ListChangeRequestsInput, deps: UseCaseDeps): Promise<Page<ChangeRequestView>> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const conditions: FilterQuery<ChangeRequest>[] = [{ spaceId: space.spaceId, status: input.status ?? "open" }];
  // A user filter that is not a user id matches nobody.
  if (input.creatorUserId) conditions.push(isId(input.creatorUserId) ? { createdBy: input.creatorUserId } : { id: { $in: [] } });
  if (input.contributorUserId) {
    conditions.push(
      isId(input.contributorUserId)
        ? {
            id: {
              $in: raw(`select change_request_id from change_request_contributors where space_id = ? and user_id = ?`, [
                space.spaceId,
                input.contributorUserId,
              ]),
            },
          }
        : { id: { $in: [] } },
    );
  }
  if (input.requestedReviewerUserId) {
    conditions.push(
      isId(input.requestedReviewerUserId)
        ? {
            id: {
              $in: raw(`select change_request_id from change_request_reviewers where space_id = ? and user_id = ?`, [
                space.spaceId,
                input.requestedReviewerUserId,
              ]),
            },
          }
        : { id: { $in: [] } },
    );
  }
  const page = await findPage(em, ChangeRequest, { $and: conditions }, CHANGE_REQUEST_SORTS[input.orderBy ?? "updatedAt"], input.page);
  const items = await changeRequestViews(em, deps, { caller, spaceId: space.spaceId, changeRequests: page.items });
  return { ...page, items };
}
