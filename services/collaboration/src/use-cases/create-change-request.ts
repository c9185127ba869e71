import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateAgentTaskId, validateSubject } from "../domain/change-request.js";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { openChangeRequest } from "./shared/open-change-request.js";
import { loadUsers } from "./shared/users.js";
import type { UseCaseDeps } from "../deps.js";

export interface CreateChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  subject: string;
  agentTaskId: string;
}

/** Creates an open change request with the space's next number and its branch in content (see openChangeRequest). */
export async function createChangeRequest(em: EntityManager, input: CreateChangeRequestInput, deps: UseCaseDeps): Promise<ChangeRequestView> {
  const caller = requireCaller(input.caller);
  const subject = validateSubject(input.subject);
  const agentTaskId = validateAgentTaskId(input.agentTaskId);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const id = randomUUID();
  // The creator (the caller) is read before the commit: once the change request is saved, nothing may fail.
  const users = await loadUsers(deps, [caller.userId]);
  const { changeRequest, branch } = await deps.unitOfWork.run(em, (tx) =>
    openChangeRequest(tx, deps, { caller, space, id, subject, description: "", agentTaskId }),
  );
  return changeRequestView(em, deps, { caller, changeRequest, branch, users });
}
