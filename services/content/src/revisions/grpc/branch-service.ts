import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import { BranchServiceService, type Branch } from "@imprint/proto/content/v1/branches";
import type { MikroORM } from "@mikro-orm/postgresql";
import { batchGetBranches } from "../batch-get-branches.js";
import { isOutdated, type BranchRecord } from "../branch-rows.js";
import { createBranch } from "../create-branch.js";
import { mergeBranch } from "../merge-branch.js";
import { updateBranch } from "../update-branch.js";
import type { RevisionDeps } from "../../../deps.js";

export const BRANCH_SERVICE_NAME = "imprint.content.v1.BranchService";

export function branchToProto(branch: BranchRecord, spaceRevisionId: string | null): Branch {
  return {
    id: branch.id,
    spaceId: branch.spaceId,
    number: branch.number,
    headRevisionId: branch.headRevisionId,
    initialRevisionId: branch.initialRevisionId,
    mergedAncestorRevisionId: branch.mergedAncestorRevisionId ?? "",
    mergedRevisionId: branch.mergedRevisionId ?? "",
    outdated: isOutdated(branch, spaceRevisionId),
    createdAt: branch.createdAt,
  };
}

/** Thin transport over the branch use cases: one use case per call, its result mapped. */
export function branchServiceImplementation(orm: MikroORM, deps: RevisionDeps): AsyncImplementation<typeof BranchServiceService> {
  const em = () => forkEm(orm);
  return {
    createBranch: async (request) => {
      const created = await createBranch(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, number: request.number },
        deps,
      );
      return { branch: branchToProto(created.branch, created.spaceRevisionId) };
    },

    batchGetBranches: async (request) => {
      const batch = await batchGetBranches(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestIds: request.changeRequestIds }, deps);
      return { branches: batch.branches.map((branch) => branchToProto(branch, batch.spaceRevisionId)), spaceRevisionId: batch.spaceRevisionId ?? "" };
    },

    mergeBranch: async (request) => {
      const merged = await mergeBranch(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      // A merged branch is never outdated, whatever the space's head is now.
      return { revisionId: merged.revisionId, branch: branchToProto(merged.branch, null), mergedPages: merged.mergedPages };
    },

    updateBranch: async (request) => {
      const updated = await updateBranch(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      return { revisionId: updated.revisionId, branch: branchToProto(updated.branch, updated.spaceRevisionId) };
    },
  };
}
