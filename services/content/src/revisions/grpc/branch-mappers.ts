import type { Branch } from "@imprint/proto/content/v1/branches";
import { isOutdated, type BranchRecord } from "../store/branch-rows.js";

/** A branch as BranchService answers it; `outdated` against the space's current revision (null: never outdated). */
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
