import type { EntityManager } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
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
  const rows = await em.execute<{ id: string; attempt: number; interruptions: number }[]>(
    `update import_runs
        set interruptions = interruptions + (case when status = 'in-progress' then 1 else 0 end),
            status = 'in-progress', attempt = attempt + 1, lease_expires_at = ?,
            pages_fetched = 0, pages_failed = 0, files_fetched = 0,
            started_at = coalesce(started_at, ?), updated_at = ?
      where id = (
        select id from import_runs
         where status = 'pending' or (status = 'in-progress' and lease_expires_at < ?)
         order by created_at, id
         limit 1
         for update skip locked)
      returning id, attempt, interruptions`,
    [new Date(now.getTime() + leaseMs), now, now, now],
  );
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
  const rows = await em.execute<{ id: string }[]>(
    `update import_runs
        set lease_expires_at = ?, updated_at = ?,
            pages_fetched = greatest(pages_fetched, coalesce(?, 0)), pages_failed = greatest(pages_failed, coalesce(?, 0)),
            files_fetched = greatest(files_fetched, coalesce(?, 0)), total_resources = coalesce(?, total_resources),
            pages = coalesce(?::jsonb, pages)
      where id = ? and attempt = ? and status = 'in-progress'
      returning id`,
    [
      new Date(now.getTime() + leaseMs),
      now,
      progress.pagesFetched ?? null,
      progress.pagesFailed ?? null,
      progress.filesFetched ?? null,
      progress.totalResources ?? null,
      progress.pages ? JSON.stringify(progress.pages) : null,
      claim.id,
      claim.attempt,
    ],
  );
  return rows.length > 0;
}

/** Ends the run as failed with `reason`, if it is still the worker's own and in progress. */
export async function failRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun, reason: string): Promise<boolean> {
  const now = deps.clock();
  const rows = await em.execute<{ id: string }[]>(
    `update import_runs set status = 'failed', reason = ?, lease_expires_at = null, finished_at = ?, updated_at = ?
      where id = ? and attempt = ? and status = 'in-progress'
      returning id`,
    [importRunReason(reason), now, now, claim.id, claim.attempt],
  );
  return rows.length > 0;
}

/** Hands the run back to the queue (its worker is stopping before it finished); another worker starts it again. */
export async function releaseRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun): Promise<void> {
  await em.execute(
    `update import_runs set status = 'pending', lease_expires_at = null, updated_at = ?
      where id = ? and attempt = ? and status = 'in-progress'`,
    [deps.clock(), claim.id, claim.attempt],
  );
}
