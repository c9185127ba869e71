import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { assertSettableStatus, validateDescription, validateSubject, type ChangeRequestStatus } from "../domain/change-request.js";
import { changeRequestArchived, changeRequestUpdated, spaceEventPayload } from "../events.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, readBranch, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";

const UPDATABLE_FIELDS = ["subject", "status", "description"] as const;

export interface UpdateChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  /** Field paths, snake_case or camelCase; empty changes nothing (REST's PATCH accepts an empty body). */
  updateMask: readonly string[] | undefined;
  subject: string;
  description: string;
  /** undefined = not a status. */
  status: ChangeRequestStatus | undefined;
}

interface Changes {
  subject?: string;
  description?: string;
  status?: ChangeRequestStatus;
}

function validateChanges(input: UpdateChangeRequestInput): Changes {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const changes: Changes = {};
  if (fields.has("subject")) changes.subject = validateSubject(input.subject);
  if (fields.has("description")) changes.description = validateDescription(input.description);
  if (fields.has("status")) {
    if (!input.status) throw AppError.invalidArgument("status: must be draft, open or archived");
    assertSettableStatus(input.status);
    changes.status = input.status;
  }
  return changes;
}

/**
 * Changes the subject, description and/or status, those the update mask names. A merged change request is final; `merged` is
 * reached only through a merge. Records `change_request.updated` with what changed, and also
 * `change_request.archived` when it was archived.
 */
export async function updateChangeRequest(em: EntityManager, input: UpdateChangeRequestInput, deps: UseCaseDeps): Promise<ChangeRequestView> {
  const caller = requireCaller(input.caller);
  const fields = validateChanges(input);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  // Its branch and creator are read before the commit (a change of subject, description or status
  // changes neither): once the change is saved, nothing may fail.
  const before = await findChangeRequest(em.fork(), space.spaceId, input.changeRequestId);
  const [branch, users] = await Promise.all([readBranch(deps, caller, before), loadUsers(deps, [before.createdBy])]);
  const changeRequest = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    const changes = found.update(fields, deps.clock);
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
