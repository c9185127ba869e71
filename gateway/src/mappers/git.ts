import type { SpaceGitSync } from "@imprint/proto/content/v1/git";
import { AppError } from "@imprint/runtime/core";

/** GitBook names only GitHub and GitLab as providers; any other host is reported as GitHub-like. */
function providerOf(url: string): "github" | "gitlab" {
  try {
    return new URL(url).hostname.includes("gitlab") ? "gitlab" : "github";
  } catch {
    return "github";
  }
}

function repoName(url: string): string {
  try {
    return new URL(url).pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  } catch {
    return "";
  }
}

/**
 * GitBook's GitSyncState (getSpaceGitInfo, a space's `gitSync`), plus Imprint's `ref` and `commit`
 * (the last synced commit). There is no installation: its id is the space's.
 */
export function toRestGitSync(sync: SpaceGitSync | undefined): Record<string, unknown> {
  if (!sync) throw new AppError("internal", "upstream answered without a git sync state");
  const operation = sync.operation;
  return {
    installationId: sync.spaceId,
    installationProvider: providerOf(sync.url),
    installationStatus: "active",
    repoName: repoName(sync.url),
    url: sync.url,
    ref: sync.gitRef,
    ...(sync.commit
      ? { commit: { oid: sync.commit.oid, message: sync.commit.message, createdByGitBook: sync.commit.createdByService, ref: sync.commit.ref } }
      : {}),
    ...(operation
      ? {
          operation: {
            state: operation.state,
            direction: operation.direction,
            startedAt: (operation.startedAt ?? new Date(0)).toISOString(),
            ...(operation.endedAt ? { endedAt: operation.endedAt.toISOString() } : {}),
            ...(operation.error ? { error: operation.error } : {}),
          },
        }
      : {}),
    ...(sync.updatedAt ? { updatedAt: sync.updatedAt.toISOString() } : {}),
    ...(sync.connection ? { connection: { direction: sync.connection.direction, priority: sync.connection.priority } } : {}),
  };
}

/**
 * Imprint's Git Sync connection (PUT/GET /v1/spaces/{spaceId}/git/sync): the remote, the direction,
 * the priority, the webhook (its secret only when PUT made one) and the last sync. Never the
 * credentials (`hasCredentials` says whether some are kept).
 */
export function toRestGitSyncConnection(sync: SpaceGitSync | undefined, webhookSecret = ""): Record<string, unknown> {
  if (!sync?.connection) throw new AppError("internal", "upstream answered without a Git sync connection");
  const { connection, operation } = sync;
  return {
    url: sync.url,
    ref: sync.gitRef,
    projectDirectory: sync.projectDirectory,
    direction: connection.direction,
    priority: connection.priority,
    hasCredentials: connection.hasCredentials,
    webhook: { url: connection.webhookUrl, ...(webhookSecret ? { secret: webhookSecret } : {}) },
    connectedAt: (connection.connectedAt ?? new Date(0)).toISOString(),
    ...(operation
      ? {
          lastSync: {
            state: operation.state,
            direction: operation.direction,
            at: (operation.endedAt ?? operation.startedAt ?? new Date(0)).toISOString(),
            ...(sync.commit ? { commit: sync.commit.oid } : {}),
            ...(operation.error ? { error: operation.error } : {}),
          },
        }
      : {}),
  };
}
