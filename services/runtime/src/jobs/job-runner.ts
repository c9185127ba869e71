import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "../logger.js";
import { executeStatement, queryRows, sql } from "../db/sql.js";
import type { CounterChild, HistogramChild } from "../metrics/fast-metrics.js";
import { jobFailures, jobLeasesLost, jobLeaseTakeovers, jobRunDuration, jobRuns } from "../metrics/series.js";

/** A background job of a service: one run at a time across all replicas of the service. */
export interface JobSpec {
  /** Unique in the service's database (letters, digits, - and _): the key of the job's lease. */
  name: string;
  /** Pause between the end of one run and the start of the next. */
  intervalMs: number;
  /**
   * One run. `signal` aborts when the service stops or this replica lost the job's lease (it
   * stalled longer than the lease): stop at the next safe point. Answer true when more work is
   * waiting, to run again at once.
   */
  run(signal: AbortSignal): Promise<boolean | void>;
}

/** What use cases see of the job runner. */
export interface JobControl {
  /**
   * Work for job `name` was queued: run it now if this replica holds the job. The replica that
   * holds it otherwise finds the work at its next run.
   */
  wake(name: string): void;
}

export interface JobRunnerOptions {
  /** The service's database, which holds the `job_leases` table. */
  orm: MikroORM;
  logger: Logger;
  /** Time of the leases (default: the system clock); replicas must agree to well within `leaseMs`. */
  clock?: () => Date;
  /** How long a lease lasts unless renewed: a crashed replica's jobs move on after it (default 30 s). */
  leaseMs?: number;
  /** How often leases are renewed and free ones taken (default a third of `leaseMs`). */
  heartbeatMs?: number;
  /** This runner's name in the lease table (default host, process id and a random part). */
  holder?: string;
  /** The `service` label of its jobs' series (imprint_job_*); empty by default. */
  service?: string;
}

/** A job's series, made once per job. */
interface JobSeries {
  runs: CounterChild;
  failures: CounterChild;
  duration: HistogramChild;
  takeovers: CounterChild;
  lost: CounterChild;
}

const JOB_NAME = /^[A-Za-z0-9_-]{1,128}$/;

interface JobState {
  spec: JobSpec;
  held: boolean;
  running: Promise<void> | undefined;
  controller: AbortController | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Woken while running: run again right after. */
  again: boolean;
  series: JobSeries;
}

/**
 * Runs a service's background jobs so that replicas share them: each job has a lease row in the
 * service's database (`job_leases`), and only its holder runs it. Every heartbeat a runner renews
 * the leases it holds and takes those that are free or ran out, in one statement; a job starts on
 * the heartbeat that wins its lease, then runs every `intervalMs`. Stopping hands the leases back
 * so another replica takes over at its next heartbeat; a crashed holder's leases run out after
 * `leaseMs`. A runner that cannot renew (database unreachable) keeps running only until its
 * leases would have run out.
 */
export class JobRunner implements JobControl {
  readonly holder: string;
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly clock: () => Date;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly service: string;
  private readonly jobs = new Map<string, JobState>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private heartbeat: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** Clock time (ms) until which the leases last renewed are surely this runner's. */
  private renewedUntil = 0;
  /**
   * Runs a function in the async context the runner was made in: a job woken by a request (a
   * keyed gRPC call) must not run inside that request's context, or its transactions would claim
   * the call's idempotency key (see IdempotentCalls).
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(options: JobRunnerOptions) {
    this.orm = options.orm;
    this.logger = options.logger.child({ component: "job-runner" });
    this.clock = options.clock ?? (() => new Date());
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? Math.floor(this.leaseMs / 3);
    if (!(this.heartbeatMs > 0 && this.heartbeatMs < this.leaseMs)) throw new Error("heartbeatMs must be positive and shorter than leaseMs");
    this.service = options.service ?? "";
    this.holder = (options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`).slice(0, 255);
  }

  /** Starts competing for the leases of `jobs`. */
  start(jobs: readonly JobSpec[]): void {
    if (this.stopping || this.heartbeatTimer) throw new Error("the job runner was already started");
    for (const spec of jobs) {
      if (!JOB_NAME.test(spec.name)) throw new Error(`job "${spec.name}" must match ${JOB_NAME.source}`);
      if (this.jobs.has(spec.name)) throw new Error(`job "${spec.name}" is defined twice`);
      const labels = [this.service, spec.name] as const;
      const series: JobSeries = {
        runs: jobRuns.child(...labels),
        failures: jobFailures.child(...labels),
        duration: jobRunDuration.child(...labels),
        takeovers: jobLeaseTakeovers.child(...labels),
        lost: jobLeasesLost.child(...labels),
      };
      this.jobs.set(spec.name, { spec, held: false, running: undefined, controller: undefined, timer: undefined, again: false, series });
    }
    if (this.jobs.size === 0) return;
    this.heartbeatTimer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
    void this.beat();
  }

  wake(name: string): void {
    this.detached(() => this.wakeHere(name));
  }

  private wakeHere(name: string): void {
    const job = this.jobs.get(name);
    if (!job || this.stopping) return;
    if (!job.held) {
      // The lease may be free (its holder stopped): look now rather than at the next heartbeat.
      void this.beat();
      return;
    }
    if (job.running) job.again = true;
    else this.runNow(job);
  }

  /** Whether this runner holds job `name`'s lease (as of its last heartbeat). */
  holds(name: string): boolean {
    return this.jobs.get(name)?.held ?? false;
  }

  /** Renews and takes leases now; resolves once the jobs it won are started. */
  beat(): Promise<void> {
    this.heartbeat ??= this.renew().finally(() => {
      this.heartbeat = undefined;
    });
    return this.heartbeat;
  }

  /**
   * Stops every job (their signals abort), waits for runs under way, then hands the leases back.
   * `release: false` leaves them to run out, as a crash would (tests).
   */
  stop(options: { release?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.heartbeatTimer);
      for (const job of this.jobs.values()) {
        clearTimeout(job.timer);
        job.controller?.abort();
      }
      await this.heartbeat;
      for (const job of this.jobs.values()) {
        while (job.running) await job.running;
        job.held = false;
      }
      if (options.release === false || this.jobs.size === 0) return;
      try {
        await executeStatement(this.orm.em.fork(), sql`delete from job_leases where holder = ${this.holder}`);
      } catch (error) {
        this.logger.warn("could not hand back job leases; they run out on their own", { err: error });
      }
    })();
    return this.stopping;
  }

  private async renew(): Promise<void> {
    if (this.stopping) return;
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + this.leaseMs);
    let held: Set<string>;
    try {
      // Take each lease that is ours, free, or run out; the others stay with their holders.
      const rows = await queryRows(
        this.orm.em.fork(),
        sql<{ name: string }>`insert into job_leases (name, holder, expires_at)
         select value, ${this.holder}, ${expiresAt} from jsonb_array_elements_text(${JSON.stringify([...this.jobs.keys()])}::jsonb)
         on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
          where job_leases.holder = excluded.holder or job_leases.expires_at <= ${now}
         returning name`,
      );
      held = new Set(rows.map((row) => row.name));
      this.renewedUntil = expiresAt.getTime();
    } catch (error) {
      this.logger.warn("could not renew job leases", { err: error });
      if (this.clock().getTime() < this.renewedUntil) return;
      held = new Set();
    }
    if (this.stopping) return;
    for (const job of this.jobs.values()) {
      const had = job.held;
      job.held = held.has(job.spec.name);
      if (job.held && !had) {
        this.logger.debug("took the lease of a job", { job: job.spec.name, holder: this.holder });
        job.series.takeovers.inc();
        this.runNow(job);
      } else if (had && !job.held) {
        this.logger.warn("lost the lease of a job; another replica runs it now", { job: job.spec.name });
        job.series.lost.inc();
        clearTimeout(job.timer);
        job.timer = undefined;
        job.controller?.abort();
      }
    }
  }

  private runNow(job: JobState): void {
    if (this.stopping || !job.held || job.running) return;
    clearTimeout(job.timer);
    job.timer = undefined;
    const controller = new AbortController();
    job.controller = controller;
    job.running = (async () => {
      let more = false;
      const startedMs = performance.now();
      job.series.runs.inc();
      try {
        more = (await job.spec.run(controller.signal)) === true;
      } catch (error) {
        job.series.failures.inc();
        this.logger.error("background job failed; it runs again after its interval", { job: job.spec.name, err: error });
      } finally {
        job.series.duration.observeSince(startedMs);
        job.running = undefined;
        job.controller = undefined;
      }
      const again = job.again || more;
      job.again = false;
      if (this.stopping || !job.held) return;
      // An aborted run (lease lost, then won back) waits for its interval like a finished one.
      if (again && !controller.signal.aborted) {
        this.runNow(job);
      } else {
        job.timer = setTimeout(() => this.runNow(job), job.spec.intervalMs);
        job.timer.unref();
      }
    })();
  }
}
