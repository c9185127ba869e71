import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { assertSettableStatus, validateDescription, validateSubject, type ChangeRequestStatus } from "../domain/change-request.js";
import { changeRequestArchived, changeRequestUpdated, spaceEventPayload } from "../events.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, readBranch, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";

export interface UpdateChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  subject: string | undefined;
  description: string | undefined;
  status: ChangeRequestStatus | undefined;
}

/**
 * Changes the subject, description and/or status. A merged change request is final; `merged` is
 * reached only through a merge. Records `change_request.updated` with what changed, and also
 * `change_request.archived` when it was archived.
 */
export async function updateChangeRequest(em: EntityManager, input: UpdateChangeRequestInput, deps: UseCaseDeps): Promise<ChangeRequestView> {
  const caller = requireCaller(input.caller);
  const subject = input.subject === undefined ? undefined : validateSubject(input.subject);
  const description = input.description === undefined ? undefined : validateDescription(input.description);
  assertSettableStatus(input.status);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  // Its branch and creator are read before the commit (a change of subject, description or status
  // changes neither): once the change is saved, nothing may fail.
  const before = await findChangeRequest(em.fork(), space.spaceId, input.changeRequestId);
  const [branch, users] = await Promise.all([readBranch(deps, caller, before), loadUsers(deps, [before.createdBy])]);
  const changeRequest = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    const changes = found.update({ subject, description, status: input.status }, deps.clock);
    if (Object.keys(changes).length === 0) return found;
    const event = { organizationId: found.organizationId, actor: caller };
    recordEvent(tx, changeRequestUpdated, {
      ...event,
      payload: await spaceEventPayload(tx, found.spaceId, { changeRequestId: found.id, number: found.number, changedFields: Object.keys(changes), changes }),
    });
    if (changes.status && found.status === "archived") {
      recordEvent(tx, changeRequestArchived, {
        ...event,
        payload: await spaceEventPayload(tx, found.spaceId, { changeRequestId: found.id, number: found.number }),
      });
    }
    return found;
  });
  return changeRequestView(em, deps, { caller, changeRequest, branch: branch ?? null, users });
}
