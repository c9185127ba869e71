import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { isId, requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { branchCreated } from "../../events.js";
import { findBranchById, insertBranch, validateBranchNumber, type BranchRecord } from "../store/branch-rows.js";
import type { RevisionDeps } from "../../deps.js";

export interface CreateBranchInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** The change request's id (chosen by the collaboration service). */
  changeRequestId: string;
  /** The change request's number in the space. */
  number: number;
}

export interface CreatedBranch {
  branch: BranchRecord;
  spaceRevisionId: string | null;
}

/**
 * Creates a change request's branch, forked from the space's current revision: the branch's head
 * and initial revision are that revision, so nothing is copied. Needs edit. Creating the same
 * branch again (same id, space and number) answers it unchanged; an id or a number already used
 * otherwise answers already_exists. Records `branch.created`.
 */
export async function createBranch(em: EntityManager, input: CreateBranchInput, deps: RevisionDeps): Promise<CreatedBranch> {
  const caller = requireCaller(input.caller);
  if (!isId(input.changeRequestId)) throw AppError.invalidArgument("change_request_id: must be a UUID");
  validateBranchNumber(input.number);
  const id = input.changeRequestId.toLowerCase();
  const created = await deps.unitOfWork.run(em, async (tx) => {
    const { space } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "edit" });
    if (!space.revisionId) throw new AppError("failed_precondition", "space: has no revision yet");
    const now = deps.clock();
    const branch: BranchRecord = {
      id,
      spaceId: space.id,
      number: input.number,
      headRevisionId: space.revisionId,
      initialRevisionId: space.revisionId,
      mergedAncestorRevisionId: null,
      mergedRevisionId: null,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await insertBranch(tx, branch))) {
      // The id or the (space, number) was taken, possibly by a concurrent create of the same branch.
      const existing = await findBranchById(tx, id);
      if (existing && existing.spaceId === space.id && existing.number === input.number)
        return { branch: existing, spaceRevisionId: space.revisionId, isNew: false };
      if (existing) throw new AppError("already_exists", "change_request_id: a change request with this id already exists");
      throw new AppError("already_exists", `number: change request #${input.number} already exists in this space`);
    }
    recordEvent(tx, branchCreated, {
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, changeRequestId: id, number: input.number, revisionId: space.revisionId },
    });
    return { branch, spaceRevisionId: space.revisionId, isNew: true };
  });
  return { branch: created.branch, spaceRevisionId: created.spaceRevisionId };
}
