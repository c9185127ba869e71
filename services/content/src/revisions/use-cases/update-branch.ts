import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { branchUpdated } from "../../events.js";
import { readSpaceHeadRow } from "../store/revision-rows.js";
import { recordRevisionCreated } from "./shared/drafts.js";
import { compareAndSetBranchHead, isOutdated, mergeBaseOf, requireBranch, requireUnmerged, updatedBranch, type BranchRecord } from "../store/branch-rows.js";
import { commitThreeWayMerge, logMerge } from "./shared/branch-revisions.js";
import type { RevisionDeps } from "../../deps.js";

export interface UpdateBranchInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** The change request's id or number. */
  changeRequestId: string;
}

export interface UpdatedBranch {
  /** The branch's head afterwards (unchanged when it was not outdated). */
  revisionId: string;
  branch: BranchRecord;
  spaceRevisionId: string | null;
}

/**
 * Brings the space's current revision into a change request's branch: the same three-way merge
 * as MergeBranch the other way (ours: the branch's head, theirs: the space's), written as a new
 * revision of the branch with parents [branch head, space head] that becomes the branch's head,
 * with the space's revision recorded as the branch's merged ancestor (the base of the next merge,
 * and what `outdated` compares with). Needs edit. A branch that is not outdated is answered
 * unchanged; a merged one cannot be updated; conflicts answer `conflict` and change nothing.
 * Records `revision.created` and `branch.updated`.
 */
export async function updateBranch(em: EntityManager, input: UpdateBranchInput, deps: RevisionDeps): Promise<UpdatedBranch> {
  const caller = requireCaller(input.caller);
  const started = performance.now();
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { space } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "edit" });
    // Locked: a commit on the branch racing the update fails its compare-and-set on the head.
    const branch = await requireBranch(tx, space.id, input.changeRequestId, { lock: true });
    requireUnmerged(branch);
    const spaceHead = await readSpaceHeadRow(tx, space.id);
    if (!spaceHead || !isOutdated(branch, spaceHead))
      return { revisionId: branch.headRevisionId, branch, spaceRevisionId: spaceHead ?? null, updated: false, mergedPages: 0, pagesChanged: 0 };

    const now = deps.clock();
    const { revision, ours, theirs, mergedPages, pagesChanged } = await commitThreeWayMerge(tx, deps, {
      spaceId: space.id,
      ours: branch.headRevisionId,
      theirs: spaceHead,
      base: mergeBaseOf(branch),
      type: "update",
      message: `Update change request #${branch.number} from the space's current revision`,
      branchId: branch.id,
      createdBy: caller.userId,
      now,
    });
    const moved = await compareAndSetBranchHead(tx, { branchId: branch.id, expected: ours.id, next: revision.id, mergedAncestorRevisionId: theirs.id, now });
    if (!moved) throw new AppError("internal", "the locked branch head moved during an update");
    recordRevisionCreated(tx, {
      organizationId: space.organizationId,
      actor: caller,
      spaceId: space.id,
      revisionId: revision.id,
      parents: revision.parents,
      movedHead: true,
      changeRequestId: branch.id,
    });
    recordEvent(tx, branchUpdated, {
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, changeRequestId: branch.id, revisionId: revision.id, mergedAncestorRevisionId: theirs.id },
    });
    const branchAfter = updatedBranch(branch, { headRevisionId: revision.id, mergedAncestorRevisionId: theirs.id }, now);
    return { revisionId: revision.id, branch: branchAfter, spaceRevisionId: spaceHead, updated: true, mergedPages, pagesChanged };
  });
  if (result.updated) {
    logMerge(deps, "change request updated from the space", { ...result, started });
  }
  return { revisionId: result.revisionId, branch: result.branch, spaceRevisionId: result.spaceRevisionId };
}
