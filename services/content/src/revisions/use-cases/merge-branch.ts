import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { branchMerged } from "../../events.js";
import { compareAndSetSpaceHead } from "../store/revision-rows.js";
import { recordRevisionCreated } from "./shared/drafts.js";
import { markBranchMerged, mergeBaseOf, mergedBranch, requireBranch, type BranchRecord } from "../store/branch-rows.js";
import { commitThreeWayMerge, logMerge } from "./shared/branch-revisions.js";
import type { RevisionDeps } from "../../deps.js";

export interface MergeBranchInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** The change request's id or number. */
  changeRequestId: string;
  /** The change request's subject, kept on the branch (a Git Sync export's commit message); empty: none. */
  subject?: string;
}

export interface MergedBranch {
  /** The merge revision, now the space's current revision. */
  revisionId: string;
  branch: BranchRecord;
  /** Pages whose edits from both sides were combined (0 when answering an earlier merge). */
  mergedPages: number;
}

/**
 * Merges a change request's branch into the space's current revision: a three-way merge (base:
 * the space's revision last brought into the branch, else the fork point) written as one revision
 * with two parents [space head, branch head], which becomes the space's current revision. Needs
 * merge. Conflicts answer `conflict` naming them and change nothing.
 *
 * One transaction locks the space's row first: merges of one space run one after the other, so a
 * second merge racing the first waits, then merges on top of the first's result (never loses it).
 * A commit racing the merge fails its compare-and-set on the space's head. The branch row is
 * locked too, so a merged branch takes no commit afterwards. Merging a merged branch answers its
 * merge revision again. Records `revision.created` and `branch.merged`.
 */
export async function mergeBranch(em: EntityManager, input: MergeBranchInput, deps: RevisionDeps): Promise<MergedBranch> {
  const caller = requireCaller(input.caller);
  const started = performance.now();
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { space } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "merge" });
    const [locked] = await queryRows<{ revision_id: string | null }>(tx, sql`select revision_id from spaces where id = ${space.id} for update`);
    const branch = await requireBranch(tx, space.id, input.changeRequestId, { lock: true });
    if (branch.mergedRevisionId) return { revisionId: branch.mergedRevisionId, branch, mergedPages: 0, pagesChanged: 0, merged: false };
    if (!locked?.revision_id) throw new AppError("failed_precondition", "space: has no revision yet");

    const now = deps.clock();
    const { revision, ours, mergedPages, pagesChanged } = await commitThreeWayMerge(tx, deps, {
      spaceId: space.id,
      ours: locked.revision_id,
      theirs: branch.headRevisionId,
      base: mergeBaseOf(branch),
      type: "merge",
      message: `Merge change request #${branch.number}`,
      branchId: null,
      createdBy: caller.userId,
      now,
    });
    // The row is locked by this transaction: the compare-and-set cannot fail, it only documents the move.
    if (!(await compareAndSetSpaceHead(tx, space.id, ours.id, revision.id))) throw new AppError("internal", "the locked space head moved during a merge");
    await markBranchMerged(tx, { branchId: branch.id, mergedRevisionId: revision.id, subject: (input.subject ?? "").slice(0, 1000), now });
    recordRevisionCreated(tx, {
      organizationId: space.organizationId,
      actor: caller,
      spaceId: space.id,
      revisionId: revision.id,
      parents: revision.parents,
      movedHead: true,
    });
    recordEvent(tx, branchMerged, {
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, changeRequestId: branch.id, revisionId: revision.id },
    });
    return { revisionId: revision.id, branch: mergedBranch(branch, revision.id, now), mergedPages, pagesChanged, merged: true };
  });
  if (result.merged) {
    logMerge(deps, "change request merged", { ...result, started });
  }
  return { revisionId: result.revisionId, branch: result.branch, mergedPages: result.mergedPages };
}
