import type { EntityManager } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import { importRunReason, type ImportRunPageRecord } from "../domain/import-run.js";

/** A run a worker holds: only the worker of this attempt may record progress, commit or finish it. */
export interface ClaimedRun {
  id: string;
  attempt: number;
  /** Take-overs so far, this one included when the previous worker vanished. */
  interruptions: number;
}

/**
 * Takes the oldest pending run, or a run in progress whose worker's claim ran out (a crashed or
 * stalled worker: an interruption), marks it in progress under a new attempt and a lease, its
 * counts back at 0 (the attempt fetches everything again). SKIP
 * LOCKED lets replicas claim side by side without waiting on each other.
 */
export async function claimNextRun(em: EntityManager, deps: { clock: Clock }, leaseMs: number): Promise<ClaimedRun | null> {
  const now = deps.clock();
  const rows = await queryRows(em, sql<{ id: string; attempt: number; interruptions: number }>`update import_runs
        set interruptions = interruptions + (case when status = 'in-progress' then 1 else 0 end),
            status = 'in-progress', attempt = attempt + 1, lease_expires_at = ${new Date(now.getTime() + leaseMs)},
            pages_fetched = 0, pages_failed = 0, files_fetched = 0,
            started_at = coalesce(started_at, ${now}), updated_at = ${now}
      where id = (
        select id from import_runs
         where status = 'pending' or (status = 'in-progress' and lease_expires_at < ${now})
         order by created_at, id
         limit 1
         for update skip locked)
      returning id, attempt, interruptions`);
  const row = rows[0];
  return row ? { id: row.id, attempt: row.attempt, interruptions: row.interruptions } : null;
}

/** What a checkpoint records besides the lease: progress counts, the planned pages. */
export interface RunProgress {
  pagesFetched?: number;
  pagesFailed?: number;
  filesFetched?: number;
  totalResources?: number;
  pages?: ImportRunPageRecord[];
}

/**
 * A worker's checkpoint: renews its lease and records `progress`, if the run is still its own and
 * in progress. Counts only grow within an attempt (a claim starts them at 0): checkpoints of
 * concurrent downloads may commit out of order, and a later one must not lower a count. False when it is not (cancelled, or taken over after the lease ran out): the worker
 * stops without writing anything.
 */
export async function checkpointRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun, leaseMs: number, progress: RunProgress = {}): Promise<boolean> {
  const now = deps.clock();
  const rows = await queryRows(em, sql<{ id: string }>`update import_runs
        set lease_expires_at = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now},
            pages_fetched = greatest(pages_fetched, coalesce(${progress.pagesFetched ?? null}, 0)), pages_failed = greatest(pages_failed, coalesce(${progress.pagesFailed ?? null}, 0)),
            files_fetched = greatest(files_fetched, coalesce(${progress.filesFetched ?? null}, 0)), total_resources = coalesce(${progress.totalResources ?? null}, total_resources),
            pages = coalesce(${progress.pages ? JSON.stringify(progress.pages) : null}::jsonb, pages)
      where id = ${claim.id} and attempt = ${claim.attempt} and status = 'in-progress'
      returning id`);
  return rows.length > 0;
}

/** Ends the run as failed with `reason`, if it is still the worker's own and in progress. */
export async function failRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun, reason: string): Promise<boolean> {
  const now = deps.clock();
  const rows = await queryRows(em, sql<{ id: string }>`update import_runs set status = 'failed', reason = ${importRunReason(reason)}, lease_expires_at = null, finished_at = ${now}, updated_at = ${now}
      where id = ${claim.id} and attempt = ${claim.attempt} and status = 'in-progress'
      returning id`);
  return rows.length > 0;
}

/** Hands the run back to the queue (its worker is stopping before it finished); another worker starts it again. */
export async function releaseRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun): Promise<void> {
  await executeStatement(em, sql`update import_runs set status = 'pending', lease_expires_at = null, updated_at = ${deps.clock()}
      where id = ${claim.id} and attempt = ${claim.attempt} and status = 'in-progress'`);
}
