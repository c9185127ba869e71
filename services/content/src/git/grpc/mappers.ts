import type { GitOperation, GitSyncConnection, SpaceGitSync } from "@imprint/proto/content/v1/git";
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

function connectionOf(sync: GitSync): GitSyncConnection | undefined {
  const connection = sync.connection;
  if (!connection) return undefined;
  return {
    direction: connection.direction,
    priority: connection.priority,
    webhookUrl: connection.webhookUrl,
    hasCredentials: connection.hasCredentials,
    connectedBy: connection.connectedBy,
    connectedAt: new Date(connection.connectedAt),
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
    projectDirectory: sync.projectDirectory,
    connection: connectionOf(sync),
  };
}
