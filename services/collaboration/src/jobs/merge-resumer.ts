import { AsyncLocalStorage } from "node:async_hooks";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Logger } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { resumeMerges } from "../use-cases/resume-merges.js";

export interface MergeResumerOptions {
  /** Pause between rounds while merges are pending (MERGE_RESUME_INTERVAL_MS). */
  intervalMs: number;
  /** Pause between looks for pending merges when none were left (another replica may leave some). */
  idleMs: number;
  /** How long a merge not (yet) done by content may still be in flight (see ResumeMergesInput). */
  inFlightMs: number;
}

/**
 * Settles merges an interruption left pending (PendingMerge): a round at start, then every
 * `intervalMs` while some are pending, every `idleMs` otherwise, and at once when woken (a merge
 * call failed without an answer). Every replica runs it: unlike a leased job, a replica restarted
 * after a crash settles the merges at once instead of waiting for the dead holder's lease, and
 * settling one twice is harmless (the merge's record is idempotent).
 */
export class MergeResumer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Runs a function in the async context the resumer was made in (see wake). */
  private readonly detached = AsyncLocalStorage.snapshot();
  private source: { em: () => EntityManager; deps: Pick<UseCaseDeps, "clock" | "content" | "unitOfWork">; logger: Logger } | undefined;

  constructor(private readonly options: MergeResumerOptions) {}

  /** Starts the rounds (the first one now). */
  start(em: () => EntityManager, deps: Pick<UseCaseDeps, "clock" | "content" | "unitOfWork">, logger: Logger): void {
    this.source = { em, deps, logger: logger.child({ component: "merge-resumer" }) };
    this.stopped = false;
    this.wake();
  }

  /**
   * Runs a round now (after the current one), in the async context the resumer was made in: a
   * merge call wakes it, and its rounds must not run as part of that call (their transactions
   * would claim the call's idempotency key, or roll back once its caller gave up).
   */
  wake(): void {
    this.detached(() => this.wakeHere());
  }

  private wakeHere(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.round().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async round(): Promise<void> {
    const { em, deps, logger } = this.source!;
    let next = this.options.idleMs;
    try {
      const { remaining } = await resumeMerges(em(), { inFlightMs: this.options.inFlightMs }, deps);
      if (remaining > 0) next = this.options.intervalMs;
    } catch (error) {
      // The database is unreachable: try again soon, the intents are safe where they are.
      logger.warn("could not settle pending merges; trying again", { err: error });
      next = this.options.intervalMs;
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), next);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
