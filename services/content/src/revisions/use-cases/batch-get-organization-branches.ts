import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { isId, requireOrganizationMembership, type CallerInput, type DefaultLevel } from "../../access/index.js";
import { OrganizationAccess } from "../../spaces/index.js";
import { findOrganizationBranches, type BranchRecord } from "../store/branch-rows.js";
import { MAX_BRANCHES_PER_BATCH } from "./batch-get-branches.js";
import type { RevisionDeps } from "../../deps.js";

export interface OrganizationBranch {
  branch: BranchRecord;
  /** Its space's current revision (what `outdated` is judged against). */
  spaceRevisionId: string | null;
}

/**
 * Branches of an organization's spaces by change request id, whatever their space, for lists that
 * span spaces: only those in spaces the caller can view (deleted spaces excluded); unknown ids and
 * the others are left out. One query for the branches and their spaces, one for the caller's
 * levels on the organization's collections. NOT_FOUND "Organization" for a non-member.
 */
export async function batchGetOrganizationBranches(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; changeRequestIds: readonly string[] },
  deps: RevisionDeps,
): Promise<OrganizationBranch[]> {
  if (input.changeRequestIds.length > MAX_BRANCHES_PER_BATCH) {
    throw AppError.invalidArgument(`change_request_ids: at most ${MAX_BRANCHES_PER_BATCH} per call`);
  }
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const ids = [...new Set(input.changeRequestIds.filter((id) => isId(id)).map((id) => id.toLowerCase()))];
  const rows = await findOrganizationBranches(em, input.organizationId, ids);
  if (rows.length === 0) return [];
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  return rows
    .filter((row) => access.spaceLevel({ id: row.branch.spaceId, defaultLevel: row.spaceDefaultLevel as DefaultLevel, parentId: row.spaceParentId }) !== null)
    .map((row) => ({ branch: row.branch, spaceRevisionId: row.spaceRevisionId }));
}
