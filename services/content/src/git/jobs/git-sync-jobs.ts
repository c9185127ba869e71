import { forkEm, type JobSpec } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { GIT_POLL_JOB, GIT_SYNC_JOB } from "../domain/sync-job.js";
import { pollGitRemotes } from "../use-cases/poll-git-remotes.js";
import { runQueuedExport } from "../use-cases/run-queued-export.js";
import { runQueuedImport } from "../use-cases/run-queued-import.js";
import { nextQueuedExport, nextQueuedImport } from "../use-cases/shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/**
 * The imports pushes queued and the exports head moves queued (imports of a space first), run by the one replica holding the job, one after another until none
 * is due (each space's import also claims the space's sync row, so an import or export started
 * through the API meanwhile waits its turn). Woken by webhooks and polls; runs every
 * GIT_SYNC_RETRY_MS for the retries that fell due.
 */
export function gitSyncJob(orm: MikroORM, deps: GitDeps): JobSpec {
  return {
    name: GIT_SYNC_JOB,
    intervalMs: deps.sync.retryBaseMs,
    run: async (signal) => {
      while (!signal.aborted) {
        const queued = await nextQueuedImport(forkEm(orm), deps.clock());
        if (queued) {
          await runQueuedImport(forkEm(orm), queued, deps);
          continue;
        }
        const exported = await nextQueuedExport(forkEm(orm), deps.clock());
        if (!exported) return;
        await runQueuedExport(forkEm(orm), exported, deps);
      }
    },
  };
}

/** Polls connected repositories every GIT_SYNC_POLL_INTERVAL_MS (listed only when that is not 0). */
export function gitPollJob(orm: MikroORM, deps: GitDeps): JobSpec {
  return {
    name: GIT_POLL_JOB,
    intervalMs: deps.sync.pollIntervalMs,
    run: async (signal) => {
      await pollGitRemotes(forkEm(orm), deps, signal);
    },
  };
}
