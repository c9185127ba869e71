import { type EntityManager } from "@mikro-orm/postgresql";
import { findOwned, recordEvent } from "@imprint/runtime";
import { ChangeRequest } from "../../domain/change-request.js";
import { changeRequestMerged, spaceEventPayload } from "../../events.js";
import type { CallerInput } from "./access.js";
import { addContributor } from "./change-requests.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Records that content merged the change request's branch as `revisionId` (in the caller's
 * transaction): status merged, the merger a contributor, `change_request.merged`. A change
 * request already recorded as merged is answered as it is, so the merge RPC and content's
 * `branch.merged` event may both arrive.
 */
export async function recordMerge(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  input: { changeRequestId: string; revisionId: string; actor: CallerInput | null },
): Promise<ChangeRequest> {
  const changeRequest = await findOwned(em, ChangeRequest, {}, input.changeRequestId, { lock: true });
  if (changeRequest.isMerged()) return changeRequest;
  const now = deps.clock();
  changeRequest.markMerged(input.revisionId, now);
  if (input.actor) await addContributor(em, changeRequest, input.actor.userId, now);
  recordEvent(em, changeRequestMerged, {
    organizationId: changeRequest.organizationId,
    actor: input.actor,
    payload: await spaceEventPayload(em, changeRequest.spaceId, {
      changeRequestId: changeRequest.id,
      number: changeRequest.number,
      revisionId: input.revisionId,
    }),
  });
  return changeRequest;
}
