import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Branch } from "@imprint/proto/content/v1/branches";
import { AppError, executeStatement, queryRows, sql, recordEvent } from "@imprint/runtime";
import { ChangeRequest, validateAgentTaskId, validateSubject } from "../domain/change-request.js";
import { changeRequestCreated, spaceEventPayload } from "../events.js";
import { callerMessage, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { addContributor } from "./shared/change-requests.js";
import { loadUsers } from "./shared/users.js";
import type { UseCaseDeps } from "../deps.js";

/** Numbers held by orphan branches (left by creations that failed after content forked) are skipped, a few at most. */
const BRANCH_ATTEMPTS = 3;

export interface CreateChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  subject: string;
  agentTaskId: string;
}

/**
 * Creates an open change request with the space's next number and its branch in content. The
 * space's row stays locked from taking the number until commit, so creations in one space are
 * serialised and numbers are 1, 2, 3... If this transaction fails after content forked the
 * branch, the orphan branch keeps that number and the next creation skips it.
 */
export async function createChangeRequest(em: EntityManager, input: CreateChangeRequestInput, deps: UseCaseDeps): Promise<ChangeRequestView> {
  const caller = requireCaller(input.caller);
  const subject = validateSubject(input.subject);
  const agentTaskId = validateAgentTaskId(input.agentTaskId);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const id = randomUUID();
  // The creator (the caller) is read before the commit: once the change request is saved, nothing may fail.
  const users = await loadUsers(deps, [caller.userId]);
  const { changeRequest, branch } = await deps.unitOfWork.run(em, async (tx) => {
    const [state] = await queryRows(
      tx,
      sql<{ next_number: number }>`insert into space_states (space_id) values (${space.spaceId})
       on conflict (space_id) do update set next_number = space_states.next_number
       returning next_number`,
    );
    let number = state!.next_number;
    let branch: Branch | undefined;
    for (let attempt = 1; !branch; attempt++) {
      try {
        ({ branch } = await deps.content.branches.createBranch({ caller: callerMessage(caller), spaceId: space.spaceId, changeRequestId: id, number }));
      } catch (error) {
        if (!(error instanceof AppError && error.code === "already_exists") || attempt >= BRANCH_ATTEMPTS) throw error;
        number += 1;
      }
    }
    await executeStatement(tx, sql`update space_states set next_number = ${number + 1} where space_id = ${space.spaceId}`);
    const now = deps.clock();
    const changeRequest = tx.create(ChangeRequest, {
      id,
      spaceId: space.spaceId,
      organizationId: space.organizationId,
      number,
      status: "open",
      subject,
      description: "",
      agentTaskId,
      createdBy: caller.userId,
      createdAt: now,
      updatedAt: now,
      mergedAt: null,
      mergedRevisionId: null,
    });
    await tx.flush();
    await addContributor(tx, changeRequest, caller.userId, now);
    recordEvent(tx, changeRequestCreated, {
      organizationId: space.organizationId,
      actor: caller,
      payload: await spaceEventPayload(tx, space.spaceId, { changeRequestId: id, number, subject, status: "open", revisionId: branch.headRevisionId }),
    });
    return { changeRequest, branch };
  });
  return changeRequestView(em, deps, { caller, changeRequest, branch, users });
}
