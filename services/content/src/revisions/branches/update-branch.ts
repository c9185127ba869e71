import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, requireSpaceAccess, type CallerInput } from "../../access/index.js";
import { recordContentEvent } from "../../events.js";
import { conflictError, mergeRevisions } from "../merge/index.js";
import type { RevisionHeader } from "../store/caches.js";
import { readSpaceHeadRow, insertRevision } from "../store/revision-rows.js";
import { StoreSession } from "../store/session.js";
import type { RevisionDeps } from "../use-cases/deps.js";
import { recordRevisionCreated, shareStoreLock } from "../use-cases/drafts.js";
import { compareAndSetBranchHead, isOutdated, mergeBaseOf, requireBranch, type BranchRecord } from "./branch-rows.js";
import { requireCommittedRevision } from "./revisions.js";

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
  const result = await em.transactional(async (tx) => {
    const { space } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "edit" });
    // Locked: a commit on the branch racing the update fails its compare-and-set on the head.
    const branch = await requireBranch(tx, space.id, input.changeRequestId, { lock: true });
    if (branch.mergedRevisionId) throw new AppError("failed_precondition", "change_request_id: the change request is merged");
    const spaceHead = await readSpaceHeadRow(tx, space.id);
    if (!spaceHead || !isOutdated(branch, spaceHead)) return { revisionId: branch.headRevisionId, branch, spaceRevisionId: spaceHead ?? null, updated: false };

    const ours = await requireCommittedRevision(tx, deps, branch.headRevisionId);
    const theirs = await requireCommittedRevision(tx, deps, spaceHead);
    const base = await requireCommittedRevision(tx, deps, mergeBaseOf(branch));
    await shareStoreLock(tx, ours.storeId);
    const now = deps.clock();
    const outcome = await mergeRevisions(new StoreSession(tx, ours.storeId, deps.caches), { base, ours, theirs, now });
    if (outcome.kind === "conflict") throw conflictError(outcome.conflicts);

    const revision: RevisionHeader = {
      id: randomUUID(),
      spaceId: space.id,
      storeId: ours.storeId,
      parents: [ours.id, theirs.id],
      status: "committed",
      root: outcome.root,
      variables: outcome.variables,
      type: "update",
      message: `Update change request #${branch.number} from the space's current revision`,
      git: null,
      createdBy: caller.userId,
      createdAt: now,
      committedAt: now,
      branchId: branch.id,
    };
    await insertRevision(tx, revision);
    const moved = await compareAndSetBranchHead(tx, { branchId: branch.id, expected: ours.id, next: revision.id, mergedAncestorRevisionId: theirs.id, now });
    if (!moved) throw new AppError("internal", "the locked branch head moved during an update");
    recordRevisionCreated(tx, deps, {
      organizationId: space.organizationId,
      actor: caller,
      spaceId: space.id,
      revisionId: revision.id,
      parents: revision.parents,
      movedHead: true,
      changeRequestId: branch.id,
    });
    recordContentEvent(tx, deps, {
      aggregate: "branch",
      name: "updated",
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, changeRequestId: branch.id, revisionId: revision.id, mergedAncestorRevisionId: theirs.id },
    });
    const updatedBranch: BranchRecord = { ...branch, headRevisionId: revision.id, mergedAncestorRevisionId: theirs.id, updatedAt: now };
    return { revisionId: revision.id, branch: updatedBranch, spaceRevisionId: spaceHead, updated: true };
  });
  if (result.updated) deps.relay.notify();
  return { revisionId: result.revisionId, branch: result.branch, spaceRevisionId: result.spaceRevisionId };
}
