import type { EntityManager } from "@mikro-orm/postgresql";
import type { Branch } from "@imprint/proto/content/v1/branches";
import { AppError, executeStatement, queryRows, recordEvent, sql } from "@imprint/runtime";
import { ChangeRequest } from "../../domain/change-request.js";
import { changeRequestCreated, spaceEventPayload } from "../../events.js";
import { callerMessage, type CallerInput } from "./access.js";
import { addContributor } from "./change-requests.js";
import type { UseCaseDeps } from "../../deps.js";

/** Numbers held by orphan branches (left by creations that failed after content forked) are skipped, a few at most. */
const BRANCH_ATTEMPTS = 3;

export interface OpenChangeRequestInput {
  caller: CallerInput;
  space: { spaceId: string; organizationId: string };
  /** The change request's id (its branch's in content). */
  id: string;
  subject: string;
  description: string;
  agentTaskId: string | null;
  /** Where its branch starts (CreateBranch's `head_revision_id`); absent: the space's current revision. */
  headRevisionId?: string;
}

/**
 * Opens a change request with the space's next number and its branch in content, in the caller's
 * transaction `tx`: the space's row stays locked from taking the number until commit, so openings
 * in one space are serialised and numbers are 1, 2, 3... If the transaction fails after content
 * forked the branch, the orphan branch keeps that number and the next opening skips it; a repeat
 * with the same id finds its branch and takes its number. Records `change_request.created`.
 */
export async function openChangeRequest(
  tx: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "clock">,
  input: OpenChangeRequestInput,
): Promise<{ changeRequest: ChangeRequest; branch: Branch }> {
  const { caller, space, id } = input;
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
      ({ branch } = await deps.content.branches.createBranch({
        caller: callerMessage(caller),
        spaceId: space.spaceId,
        changeRequestId: id,
        number,
        ...(input.headRevisionId ? { headRevisionId: input.headRevisionId } : {}),
      }));
    } catch (error) {
      if (!(error instanceof AppError && error.code === "already_exists") || attempt >= BRANCH_ATTEMPTS) throw error;
      // A repeat whose branch content kept (under another number, taken before this service could record it).
      const { branches } = await deps.content.branches.batchGetBranches({ caller: callerMessage(caller), spaceId: space.spaceId, changeRequestIds: [id] });
      const own = branches.find((candidate) => candidate.id === id);
      if (own) number = own.number;
      else number += 1;
    }
  }
  await executeStatement(tx, sql`update space_states set next_number = greatest(next_number, ${number + 1}) where space_id = ${space.spaceId}`);
  const now = deps.clock();
  const changeRequest = tx.create(ChangeRequest, {
    id,
    spaceId: space.spaceId,
    organizationId: space.organizationId,
    number,
    status: "open",
    subject: input.subject,
    description: input.description,
    agentTaskId: input.agentTaskId,
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
    payload: await spaceEventPayload(tx, space.spaceId, {
      changeRequestId: id,
      number,
      subject: input.subject,
      status: "open",
      revisionId: branch.headRevisionId,
    }),
  });
  return { changeRequest, branch };
}
