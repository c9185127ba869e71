import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { changeRequestUpdatedFromMain, spaceEventPayload } from "../events.js";
import { callerMessage, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { addContributor, findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";

export interface UpdateChangeRequestFromMainInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
}

/**
 * Brings the space's current content into the change request (content merges it into the
 * branch; CONFLICT passes through), then records the update: the caller becomes a contributor.
 */
export async function updateChangeRequestFromMain(
  em: EntityManager,
  input: UpdateChangeRequestFromMainInput,
  deps: UseCaseDeps,
): Promise<{ revisionId: string; view: ChangeRequestView }> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const found = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  found.assertUpdatableFromMain();
  // The creator is read before anything changes: once this service committed, nothing may fail.
  const users = await loadUsers(deps, [found.createdBy]);
  const updated = await deps.content.branches.updateBranch({ caller: callerMessage(caller), spaceId: space.spaceId, changeRequestId: found.id });
  const changeRequest = await deps.unitOfWork.run(em, async (tx) => {
    const locked = await findChangeRequest(tx, space.spaceId, found.id, { lock: true });
    const now = deps.clock();
    locked.updatedAt = now;
    await addContributor(tx, locked, caller.userId, now);
    recordEvent(tx, changeRequestUpdatedFromMain, {
      organizationId: locked.organizationId,
      actor: caller,
      payload: await spaceEventPayload(tx, locked.spaceId, { changeRequestId: locked.id, number: locked.number, revisionId: updated.revisionId }),
    });
    return locked;
  });
  return { revisionId: updated.revisionId, view: await changeRequestView(em, deps, { caller, changeRequest, branch: updated.branch ?? null, users }) };
}
