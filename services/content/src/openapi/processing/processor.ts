import { forkEm, type Clock, type Logger, type UnitOfWork } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { SafeFetchPolicy } from "../../import/safe-fetch.js";
import { fetchSource, ProcessingAborted, type SourceFetchLimits } from "./fetch-source.js";
import { claimNextSpec, finishSpec, releaseSpec, type ClaimedSpec } from "./jobs.js";
import type { ProcessingOutcome } from "./outcome.js";
import { parseSpecDocument, type ParseLimits } from "./parse-document.js";

export interface OpenApiProcessingLimits extends SourceFetchLimits, ParseLimits {
  /** How long a claim holds before another worker may take the specification over. */
  leaseMs: number;
  /** How often the queue is looked at without a wake-up (other replicas' submissions, expired leases). */
  pollIntervalMs: number;
}

export const DEFAULT_OPENAPI_PROCESSING_LIMITS: OpenApiProcessingLimits = {
  timeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  dereferenceTimeoutMs: 20_000,
  leaseMs: 2 * 60_000,
  pollIntervalMs: 2_000,
};

export interface OpenApiProcessorDeps {
  orm: MikroORM;
  clock: Clock;
  logger: Logger;
  unitOfWork: UnitOfWork;
  fetchPolicy: SafeFetchPolicy;
  limits: OpenApiProcessingLimits;
}

/** Fetches and validates one claimed source; failures of the source become an outcome, not an exception. */
export async function processSource(claim: ClaimedSpec, deps: Pick<OpenApiProcessorDeps, "fetchPolicy" | "limits">, stopSignal: AbortSignal): Promise<ProcessingOutcome> {
  const fetched = await fetchSource(claim.sourceUrl, deps.fetchPolicy, deps.limits, stopSignal);
  if ("code" in fetched) return { ok: false, failure: fetched };
  const parsed = await parseSpecDocument(fetched.bytes, deps.limits);
  if ("code" in parsed) return { ok: false, failure: parsed };
  return { ok: true, document: parsed };
}

/**
 * The background worker of OpenAPI processing: one specification at a time per process, taken
 * from the `openapi_specs` queue (see jobs.ts). Woken at once when this process queues a source,
 * and every `pollIntervalMs` otherwise. Stopping aborts the fetch under way and hands its
 * specification back to the queue.
 */
export class OpenApiProcessor {
  private readonly stopController = new AbortController();
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(private readonly deps: OpenApiProcessorDeps) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Work was queued: look now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeUp?.();
    await this.loop;
  }

  private get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      let worked = false;
      try {
        worked = await this.processNext();
      } catch (error) {
        this.deps.logger.error("OpenAPI processing failed; the specification is retried when its lease expires", { err: error });
      }
      if (!worked && !this.woken && !this.stopping) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.deps.limits.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }

  /** Processes the next queued specification; false when there was none. */
  async processNext(): Promise<boolean> {
    const claim = await forkEm(this.deps.orm).transactional((tx) => claimNextSpec(tx, this.deps, this.deps.limits.leaseMs));
    if (!claim) return false;
    const logger = this.deps.logger.child({ specId: claim.specId, generation: claim.generation });
    let outcome: ProcessingOutcome;
    try {
      outcome = await processSource(claim, this.deps, this.stopController.signal);
    } catch (error) {
      if (error instanceof ProcessingAborted) {
        await releaseSpec(forkEm(this.deps.orm), claim);
        return true;
      }
      throw error;
    }
    const result = await finishSpec(forkEm(this.deps.orm), this.deps, claim, outcome);
    if (result.recorded) {
      logger.info("OpenAPI specification processed", { ok: outcome.ok, versionId: result.versionId, newVersion: result.newVersion });
    } else {
      logger.info("OpenAPI processing result dropped", { reason: result.reason });
    }
    return true;
  }
}
