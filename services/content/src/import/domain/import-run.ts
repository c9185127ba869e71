import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/** GitBook's statuses of an import run. */
export const IMPORT_RUN_STATUSES = ["pending", "in-progress", "completed", "failed", "cancelled"] as const;
export type ImportRunStatus = (typeof IMPORT_RUN_STATUSES)[number];
/** Statuses a run never leaves. */
export const FINISHED_IMPORT_RUN_STATUSES: readonly ImportRunStatus[] = ["completed", "failed", "cancelled"];

/** The job executing import runs: its lease in `job_leases`, and what starting a run wakes. */
export const IMPORT_RUNS_JOB = "import-runs";

export const IMPORT_RUN_REASON_MAX = 1000;

/** A page the run creates: planned once the crawl is done, complete once the run committed. */
export interface ImportRunPageRecord {
  pageId: string;
  sourceUrl: string;
  complete: boolean;
}

/** How import runs are executed: the job's slots and polling, the claims' lease, the attempts. */
export interface ImportRunLimits {
  /** Runs one replica executes at once (IMPORT_RUN_CONCURRENCY). */
  concurrency: number;
  /** How long a worker's claim on a run holds unless renewed; a crashed worker's run is taken over after it. */
  leaseMs: number;
  /** How often a worker renews its claim and looks for a cancellation (its checkpoint while it waits on the network). */
  heartbeatMs: number;
  /** How often the queue is looked at without a wake-up (other replicas' runs, expired claims). */
  pollIntervalMs: number;
  /** Take-overs of one run whose worker vanished (its claim ran out) before the run is failed instead (IMPORT_RUN_MAX_INTERRUPTIONS). */
  maxInterruptions: number;
}

export const DEFAULT_IMPORT_RUN_LIMITS: ImportRunLimits = {
  concurrency: 2,
  leaseMs: 60_000,
  heartbeatMs: 2_000,
  pollIntervalMs: 2_000,
  maxInterruptions: 2,
};

/**
 * An import run: an import (today: a website) into a space, a change request's branch or under a
 * page, queued by StartImportRun and executed by the import-runs job. The row is also the run's
 * claim: a worker that takes it (status `in-progress`) bumps `attempt` and holds it until
 * `leaseExpiresAt`, renewing it as it goes; only the worker of the current attempt may record
 * progress or commit, and the commit and the `completed` status are one transaction, so a run is
 * written at most once whatever crashes or cancels around it.
 */
export const ImportRunSchema = defineEntity({
  name: "ImportRun",
  tableName: "import_runs",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    spaceId: p.uuid(),
    /** The change request's id (its branch); null for the space's own content. */
    changeRequestId: p.uuid().nullable(),
    underPageId: p.string().length(64).nullable(),
    source: p.string().length(32),
    /** The source's URL as parsed (at most 2,048 characters given; encoding may lengthen it). */
    url: p.text(),
    status: p.enum(IMPORT_RUN_STATUSES).default("pending"),
    reason: p.string().length(IMPORT_RUN_REASON_MAX).nullable(),
    createdBy: p.uuid(),
    /** The API token the run was started with (the caller the run acts as); null without one. */
    createdByTokenId: p.text().nullable(),
    /** Claims so far (0 while never started): the worker of the latest claim is the only one that may write. */
    attempt: p.integer().default(0),
    /** Claims taken over from a worker that vanished (crashed, or stalled past its lease). */
    interruptions: p.integer().default(0),
    leaseExpiresAt: p.datetime().nullable(),
    pagesFetched: p.integer().default(0),
    pagesFailed: p.integer().default(0),
    filesFetched: p.integer().default(0),
    importedResources: p.integer().default(0),
    totalResources: p.integer().default(0),
    revisionId: p.uuid().nullable(),
    pages: p.json<ImportRunPageRecord[]>().default("[]"),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ["organizationId", "createdAt", "id"], name: "import_runs_organization_created_index" },
    { properties: ["status", "leaseExpiresAt"], name: "import_runs_status_lease_index" },
  ],
});

export class ImportRun extends ImportRunSchema.class {
  isFinished(): boolean {
    return FINISHED_IMPORT_RUN_STATUSES.includes(this.status);
  }

  /**
   * pending → cancelled (it never starts), in-progress → cancelled (its worker finds out at its
   * next checkpoint and writes nothing: its commit needs the run still in progress). A finished
   * run cannot be cancelled.
   */
  cancel(now: Date): void {
    if (this.isFinished()) {
      throw AppError.invalidArgument(`importRunId: the import run is already ${this.status}; only pending or in-progress runs can be cancelled`);
    }
    this.status = "cancelled";
    this.leaseExpiresAt = null;
    this.finishedAt = now;
    this.updatedAt = now;
  }
}
ImportRunSchema.setClass(ImportRun);

export const importRunEntities = [ImportRun];

/** A failure's reason as stored: one line, bounded. */
export function importRunReason(text: string): string {
  const line = text.replace(/\s+/g, " ").trim() || "the import failed";
  return line.length > IMPORT_RUN_REASON_MAX ? `${line.slice(0, IMPORT_RUN_REASON_MAX - 1)}…` : line;
}
