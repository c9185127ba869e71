import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { isId, type CallerInput } from "../../access/index.js";
import { requireSpaceReadAccess } from "../../spaces/index.js";
import { findBranches, type BranchRecord } from "../store/branch-rows.js";
import type { RevisionDeps } from "../../deps.js";

export const MAX_BRANCHES_PER_BATCH = 1000;

export interface BranchBatch {
  branches: BranchRecord[];
  /** The space's current revision (what `outdated` is judged against). */
  spaceRevisionId: string | null;
}

/** The space's branches among the given change request ids (unknown ids are left out). Needs view. */
export async function batchGetBranches(
  em: EntityManager,
  input: { caller: CallerInput | undefined; spaceId: string; changeRequestIds: readonly string[] },
  deps: RevisionDeps,
): Promise<BranchBatch> {
  if (input.changeRequestIds.length > MAX_BRANCHES_PER_BATCH) {
    throw AppError.invalidArgument(`change_request_ids: at most ${MAX_BRANCHES_PER_BATCH} per call`);
  }
  const { space } = await requireSpaceReadAccess(em, deps, { caller: input.caller, spaceId: input.spaceId, need: "view" });
  // Ids of the wrong shape name no branch: left out like unknown ones.
  const ids = [...new Set(input.changeRequestIds.filter((id) => isId(id)).map((id) => id.toLowerCase()))];
  return { branches: await findBranches(em, space.id, ids), spaceRevisionId: space.revisionId ?? null };
}
