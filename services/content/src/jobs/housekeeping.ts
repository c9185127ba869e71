import { forkEm, type JobSpec } from "@imprint/runtime";
import { deleteExpiredExports } from "../exports/index.js";
import { purgeDeletedSpaces } from "../use-cases/spaces/purge-deleted-spaces.js";
import type { ContentDeps } from "../deps.js";

export const SPACE_PURGE_JOB = "space-purge";
export const EXPORT_SWEEP_JOB = "export-sweep";

/**
 * The content service's housekeeping, every PURGE_INTERVAL_MS, each run by one replica at a time
 * (the runtime's job runner): {@link purgeDeletedSpaces} and {@link deleteExpiredExports}. The
 * internal PurgeDeletedSpaces RPC runs the first on demand.
 */
export function housekeepingJobs(deps: ContentDeps): JobSpec[] {
  return [
    {
      name: SPACE_PURGE_JOB,
      intervalMs: deps.config.PURGE_INTERVAL_MS,
      // It logs its own figures.
      run: async () => void (await purgeDeletedSpaces(forkEm(deps.orm), deps)),
    },
    {
      name: EXPORT_SWEEP_JOB,
      intervalMs: deps.config.PURGE_INTERVAL_MS,
      run: async () => {
        const started = performance.now();
        const { deleted, blobsDeleted } = await deleteExpiredExports(forkEm(deps.orm), deps);
        if (deleted > 0) deps.logger.info("deleted expired exports", { exports: deleted, blobs: blobsDeleted, duration_ms: Math.round(performance.now() - started) });
      },
    },
  ];
}
