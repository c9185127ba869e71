import { forkEm, type JobSpec } from "@imprint/runtime";
import type { SpaceServiceDeps } from "../../deps.js";
import { purgeDeletedSpaces } from "../use-cases/purge-deleted-spaces.js";

export const SPACE_PURGE_JOB = "space-purge";

/**
 * Purges spaces deleted longer ago than the retention, every PURGE_INTERVAL_MS, run by one replica
 * at a time (the runtime's job runner). The internal PurgeDeletedSpaces RPC runs it on demand.
 */
export function spacePurgeJob(deps: SpaceServiceDeps): JobSpec {
  return {
    name: SPACE_PURGE_JOB,
    intervalMs: deps.config.PURGE_INTERVAL_MS,
    // It logs its own figures.
    run: async () => void (await purgeDeletedSpaces(forkEm(deps.orm), deps)),
  };
}
