import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { GitSync } from "../domain/git-sync.js";
import { GIT_SYNC_JOB } from "../domain/sync-job.js";
import { remoteHead } from "../store/repository.js";
import { connectionUrl } from "./shared/connection-remote.js";
import { parseRemoteRequest, withRemote } from "./shared/remote-access.js";
import { openConnectionSecrets, queueImport } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/**
 * For hosts without webhooks: asks every connected repository (that imports) for its ref's commit
 * (`git ls-remote`) and queues an import where it is neither the commit synced nor the one queued,
 * as a webhook would. A repository that cannot be reached is logged and asked again next time.
 */
export async function pollGitRemotes(em: EntityManager, deps: GitDeps, signal: AbortSignal): Promise<number> {
  const connected = await em.fork().find(GitSync, { connection: { $ne: null } }, { orderBy: { spaceId: "asc" } });
  let queued = 0;
  for (const sync of connected) {
    if (signal.aborted) break;
    if (!sync.connection || sync.connection.direction === "export") continue;
    const secrets = openConnectionSecrets(deps, sync.spaceId, sync.secretsCiphertext);
    if (!secrets) continue;
    try {
      const request = parseRemoteRequest(
        { userId: sync.connection.connectedBy },
        { spaceId: sync.spaceId, url: connectionUrl(sync.url, secrets), gitRef: sync.ref, projectDirectory: sync.projectDirectory },
        deps,
      );
      const head = await withRemote(request, deps, (workspace, network) => remoteHead(workspace, network, request.ref, deps.limits));
      if (!head || head === sync.commitOid || head === sync.pendingCommit) continue;
      await queueImport(em, sync.spaceId, head, deps.clock());
      queued += 1;
      deps.logger.info("git poll queued an import", { space_id: sync.spaceId, commit: head });
    } catch (error) {
      deps.logger.warn("git poll: the repository could not be asked", {
        space_id: sync.spaceId,
        error: error instanceof AppError ? error.message : "internal error",
      });
    }
  }
  if (queued > 0) deps.jobs.wake(GIT_SYNC_JOB);
  return queued;
}
