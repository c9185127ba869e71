import type { GitOperation, SpaceGitSync } from "@imprint/proto/content/v1/git";
import type { GitSync } from "../domain/git-sync.js";

function operationOf(sync: GitSync): GitOperation | undefined {
  const operation = sync.operation;
  if (!operation) return undefined;
  return {
    direction: operation.direction,
    state: operation.state,
    startedAt: new Date(operation.startedAt),
    endedAt: operation.endedAt ? new Date(operation.endedAt) : undefined,
    error: operation.error ?? "",
  };
}

/** A space's sync state as GetSpaceGitInfo and Space.git_sync carry it (the URL never has credentials). */
export function gitSyncToProto(sync: GitSync): SpaceGitSync {
  return {
    spaceId: sync.spaceId,
    url: sync.url,
    gitRef: sync.ref,
    commit: sync.commitOid ? { oid: sync.commitOid, message: sync.commitMessage, url: "", ref: sync.ref, createdByService: sync.commitByService } : undefined,
    operation: operationOf(sync),
    updatedAt: sync.updatedAt,
  };
}
