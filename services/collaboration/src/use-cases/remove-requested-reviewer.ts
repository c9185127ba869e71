import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { RequestedReviewer } from "../domain/review.js";
import { changeRequestReviewerRemoved, spaceEventPayload } from "../events.js";
import { isId, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";

export interface RemoveRequestedReviewerInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  userId: string;
}

/**
 * Withdraws a request to review (their reviews stay). Idempotent: false when the user was not
 * asked (nothing recorded); otherwise records `change_request.reviewer_removed`.
 */
export async function removeRequestedReviewer(em: EntityManager, input: RemoveRequestedReviewerInput, deps: UseCaseDeps): Promise<boolean> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  return deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    if (!isId(input.userId)) return false;
    const removed = await tx.nativeDelete(RequestedReviewer, { changeRequestId: found.id, userId: input.userId.toLowerCase() });
    if (removed === 0) return false;
    recordEvent(tx, changeRequestReviewerRemoved, {
      organizationId: found.organizationId,
      actor: caller,
      payload: await spaceEventPayload(tx, found.spaceId, { changeRequestId: found.id, number: found.number, userId: input.userId.toLowerCase() }),
    });
    return true;
  });
}
