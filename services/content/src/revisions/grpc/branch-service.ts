import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { BranchServiceService } from "@imprint/proto/content/v1/branches";
import type { MikroORM } from "@mikro-orm/postgresql";
import { batchGetBranches } from "../use-cases/batch-get-branches.js";
import { batchGetOrganizationBranches } from "../use-cases/batch-get-organization-branches.js";
import { createBranch } from "../use-cases/create-branch.js";
import { mergeBranch } from "../use-cases/merge-branch.js";
import { updateBranch } from "../use-cases/update-branch.js";
import type { RevisionDeps } from "../../deps.js";
import { branchToProto } from "./branch-mappers.js";

export const BRANCH_SERVICE_NAME = "imprint.content.v1.BranchService";

/** Thin transport over the branch use cases: one use case per call, its result mapped. */
export function branchServiceImplementation(orm: MikroORM, deps: RevisionDeps): AsyncImplementation<typeof BranchServiceService> {
  const em = () => forkEm(orm);
  return {
    createBranch: async (request) => {
      const created = await createBranch(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          number: request.number,
          headRevisionId: request.headRevisionId,
        },
        deps,
      );
      return { branch: branchToProto(created.branch, created.spaceRevisionId) };
    },

    batchGetBranches: async (request) => {
      const batch = await batchGetBranches(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestIds: request.changeRequestIds }, deps);
      return { branches: batch.branches.map((branch) => branchToProto(branch, batch.spaceRevisionId)), spaceRevisionId: batch.spaceRevisionId ?? "" };
    },

    mergeBranch: async (request) => {
      const merged = await mergeBranch(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, subject: request.subject ?? "" },
        deps,
      );
      // A merged branch is never outdated, whatever the space's head is now.
      return { revisionId: merged.revisionId, branch: branchToProto(merged.branch, null), mergedPages: merged.mergedPages };
    },

    updateBranch: async (request) => {
      const updated = await updateBranch(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      return { revisionId: updated.revisionId, branch: branchToProto(updated.branch, updated.spaceRevisionId) };
    },

    batchGetOrganizationBranches: async (request) => {
      const found = await batchGetOrganizationBranches(
        em(),
        { caller: request.caller, organizationId: request.organizationId, changeRequestIds: request.changeRequestIds },
        deps,
      );
      return { branches: found.map(({ branch, spaceRevisionId }) => branchToProto(branch, spaceRevisionId)) };
    },
  };
}
