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
  };
}
