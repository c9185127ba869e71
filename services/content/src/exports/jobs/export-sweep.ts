import { forkEm, type JobSpec } from "@imprint/runtime";
import type { ContentDeps } from "../../deps.js";
import { deleteExpiredExports } from "../use-cases/delete-expired-exports.js";

export const EXPORT_SWEEP_JOB = "export-sweep";

/** Deletes expired exports and their blobs, every PURGE_INTERVAL_MS, run by one replica at a time (the runtime's job runner). */
export function exportSweepJob(deps: ContentDeps): JobSpec {
  return {
    name: EXPORT_SWEEP_JOB,
    intervalMs: deps.config.PURGE_INTERVAL_MS,
    run: async () => {
      const started = performance.now();
      const { deleted, blobsDeleted } = await deleteExpiredExports(forkEm(deps.orm), deps);
      if (deleted > 0)
        deps.logger.info("deleted expired exports", { exports: deleted, blobs: blobsDeleted, duration_ms: Math.round(performance.now() - started) });
    },
  };
}
