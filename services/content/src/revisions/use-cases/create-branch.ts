import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { isId, requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { branchCreated } from "../../events.js";
import { findBranchById, insertBranch, validateBranchNumber, type BranchRecord } from "../store/branch-rows.js";
import { findRevision } from "../store/revision-rows.js";
import type { RevisionDeps } from "../../deps.js";

export interface CreateBranchInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** The change request's id (chosen by the collaboration service). */
  changeRequestId: string;
  /** The change request's number in the space. */
  number: number;
  /**
   * Where the branch starts: empty for the space's current revision; else a committed revision of
   * the space made on no branch (Git Sync's kept side of a conflict), whose first parent is the base.
   */
  headRevisionId?: string;
}

export interface CreatedBranch {
  branch: BranchRecord;
  spaceRevisionId: string | null;
}

/**
 * Creates a change request's branch, forked from the space's current revision: the branch's head
 * and initial revision are that revision, so nothing is copied (or, given `headRevisionId`, that
 * revision is the head and its first parent the initial revision). Needs edit. Creating the same
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
    const start = input.headRevisionId ? await startingRevision(tx, deps, space.id, input.headRevisionId) : null;
    const now = deps.clock();
    const branch: BranchRecord = {
      id,
      spaceId: space.id,
      number: input.number,
      headRevisionId: start?.head ?? space.revisionId,
      initialRevisionId: start?.initial ?? space.revisionId,
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
      payload: { spaceId: space.id, changeRequestId: id, number: input.number, revisionId: branch.headRevisionId },
    });
    return { branch, spaceRevisionId: space.revisionId, isNew: true };
  });
  return { branch: created.branch, spaceRevisionId: created.spaceRevisionId };
}

/** A branch's given head: a committed revision of the space on no branch, with a first parent (the branch's base). */
async function startingRevision(em: EntityManager, deps: Pick<RevisionDeps, "caches">, spaceId: string, revisionId: string) {
  if (!isId(revisionId)) throw AppError.invalidArgument("head_revision_id: must be a UUID");
  const revision = await findRevision(em, deps.caches, revisionId.toLowerCase());
  if (!revision || revision.spaceId !== spaceId || revision.status !== "committed") throw AppError.notFound("head_revision_id: revision");
  const initial = revision.parents[0];
  if (revision.branchId !== null || !initial) throw AppError.invalidArgument("head_revision_id: must be a revision of the space's own history with a parent");
  return { head: revision.id, initial };
}
