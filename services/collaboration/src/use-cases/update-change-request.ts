import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { ChangeRequestStatus } from "../domain/change-request.js";
import { changeRequestArchived, changeRequestUpdated, recordCollaborationEvent } from "../events.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest, validateDescription, validateSubject } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";

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
  if (input.status === "merged") throw AppError.invalidArgument("status: a change request is merged only through merge");
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const changeRequest = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (subject !== undefined && subject !== found.subject) changes.subject = { from: found.subject, to: subject };
    if (description !== undefined && description !== found.description) changes.description = { from: found.description, to: description };
    if (input.status !== undefined && input.status !== found.status) changes.status = { from: found.status, to: input.status };
    if (Object.keys(changes).length === 0) return found;
    if (found.status === "merged") throw new AppError("failed_precondition", "Change request is merged and can no longer be changed");
    if (subject !== undefined) found.subject = subject;
    if (description !== undefined) found.description = description;
    if (input.status !== undefined) found.status = input.status;
    found.updatedAt = deps.clock();
    const event = { organizationId: found.organizationId, actor: caller, spaceId: found.spaceId };
    await recordCollaborationEvent(tx, deps, changeRequestUpdated, {
      ...event,
      payload: { changeRequestId: found.id, number: found.number, changedFields: Object.keys(changes), changes },
    });
    if (changes.status && found.status === "archived") {
      await recordCollaborationEvent(tx, deps, changeRequestArchived, { ...event, payload: { changeRequestId: found.id, number: found.number } });
    }
    return found;
  });
  return changeRequestView(em, deps, { caller, changeRequest });
}
