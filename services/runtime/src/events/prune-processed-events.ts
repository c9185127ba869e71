import type { MikroORM } from "@mikro-orm/postgresql";
import type { JobSpec } from "../jobs/job-runner.js";
import type { Logger } from "../logger.js";
import { queryRows, sql } from "../db/sql.js";

/** The runtime's job that every service runs (see startService); its lease name in `job_leases`. */
export const PRUNE_PROCESSED_EVENTS_JOB = "runtime-prune-processed-events";

export interface PruneProcessedEventsOptions {
  orm: MikroORM;
  logger: Logger;
  clock: () => Date;
  /**
   * How long a consumer remembers that it handled an event. A record only has to outlive every
   * redelivery of its event: JetStream's duplicate window (2 min) for a republished batch, and the
   * stream's max age (NATS_STREAM_MAX_AGE_MS) for a message redelivered or re-read from the
   * stream; an event older than that is no longer in the stream, so nothing can hand it back.
   */
  retentionMs: number;
  /** Rows deleted per statement, so one run never holds a long lock or a huge transaction. */
  batchSize?: number;
  /** Pause between runs (default an hour); a run that filled a batch runs again at once. */
  intervalMs?: number;
}

/**
 * Deletes `processed_events` rows older than `retentionMs`, one batch per run: a full batch answers
 * true so the job runner runs it again at once, until what is left is younger than the retention.
 */
export function pruneProcessedEventsJob(options: PruneProcessedEventsOptions): JobSpec {
  const batchSize = options.batchSize ?? 5_000;
  return {
    name: PRUNE_PROCESSED_EVENTS_JOB,
    intervalMs: options.intervalMs ?? 3_600_000,
    run: async () => {
      const before = new Date(options.clock().getTime() - options.retentionMs);
      const rows = await queryRows(
        options.orm.em.fork(),
        sql<{
          consumer: string;
        }>`delete from processed_events where ctid in (select ctid from processed_events where processed_at < ${before} limit ${batchSize}) returning consumer`,
      );
      if (rows.length > 0) options.logger.debug("pruned processed-event records", { deleted: rows.length, before: before.toISOString() });
      return rows.length === batchSize;
    },
  };
}
