import type { EntityManager } from "@mikro-orm/postgresql";
import { sql, WorkQueue, type Clock } from "@imprint/runtime";
import { importRunReason, type ImportRunPageRecord } from "../domain/import-run.js";

/** A run a worker holds: only the worker of this attempt may record progress, commit or finish it. */
export interface ClaimedRun {
  id: string;
  attempt: number;
  /** Take-overs so far, this one included when the previous worker vanished. */
  interruptions: number;
}

/**
 * The `import_runs` queue: pending runs, and runs in progress whose worker's lease ran out (a
 * crashed or stalled worker: an interruption). A worker's claim is its attempt: only the worker
 * of the current attempt of a run still in progress may record progress, commit or finish it.
 */
const importRunQueue = new WorkQueue({ table: "import_runs", open: sql`status in ('pending', 'in-progress')`, order: sql`created_at, id` });

const heldBy = (claim: ClaimedRun) => ({ holds: sql`attempt = ${claim.attempt} and status = 'in-progress'` });

/**
 * Takes the oldest due run and marks it in progress under a new attempt and a lease, its counts
 * back at 0 (the attempt fetches everything again); taking over a run in progress counts an interruption.
 */
export async function claimNextRun(em: EntityManager, deps: { clock: Clock }, leaseMs: number): Promise<ClaimedRun | null> {
  const now = deps.clock();
  const [row] = await importRunQueue.claim(em, {
    now,
    leaseMs,
    set: sql`interruptions = interruptions + (case when status = 'in-progress' then 1 else 0 end),
            status = 'in-progress', attempt = attempt + 1,
            pages_fetched = 0, pages_failed = 0, files_fetched = 0,
            started_at = coalesce(started_at, ${now}), updated_at = ${now}`,
    returning: sql<ClaimedRun>`id, attempt, interruptions`,
  });
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
export async function checkpointRun(
  em: EntityManager,
  deps: { clock: Clock },
  claim: ClaimedRun,
  leaseMs: number,
  progress: RunProgress = {},
): Promise<boolean> {
  const now = deps.clock();
  return importRunQueue.renew(em, claim.id, {
    ...heldBy(claim),
    now,
    leaseMs,
    set: sql`updated_at = ${now},
            pages_fetched = greatest(pages_fetched, coalesce(${progress.pagesFetched ?? null}, 0)), pages_failed = greatest(pages_failed, coalesce(${progress.pagesFailed ?? null}, 0)),
            files_fetched = greatest(files_fetched, coalesce(${progress.filesFetched ?? null}, 0)), total_resources = coalesce(${progress.totalResources ?? null}, total_resources),
            pages = coalesce(${progress.pages ? JSON.stringify(progress.pages) : null}::jsonb, pages)`,
  });
}

/** Ends the run as completed with what its commit (in `em`'s transaction, after the run's row was locked) imported. */
export async function completeRun(
  em: EntityManager,
  deps: { clock: Clock },
  claim: ClaimedRun,
  committed: { revisionId: string; importedResources: number; totalResources: number; pages: ImportRunPageRecord[] },
): Promise<boolean> {
  const now = deps.clock();
  return importRunQueue.complete(em, claim.id, {
    ...heldBy(claim),
    set: sql`status = 'completed', revision_id = ${committed.revisionId}, imported_resources = ${committed.importedResources},
             total_resources = ${committed.totalResources}, pages = ${JSON.stringify(committed.pages)}::jsonb, finished_at = ${now}, updated_at = ${now}`,
  });
}

/** Ends the run as failed with `reason`, if it is still the worker's own and in progress. */
export async function failRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun, reason: string): Promise<boolean> {
  const now = deps.clock();
  return importRunQueue.complete(em, claim.id, {
    ...heldBy(claim),
    set: sql`status = 'failed', reason = ${importRunReason(reason)}, finished_at = ${now}, updated_at = ${now}`,
  });
}

/** Hands the run back to the queue (its worker is stopping before it finished); another worker starts it again. */
export async function releaseRun(em: EntityManager, deps: { clock: Clock }, claim: ClaimedRun): Promise<void> {
  await importRunQueue.release(em, claim.id, { ...heldBy(claim), set: sql`status = 'pending', updated_at = ${deps.clock()}` });
}
