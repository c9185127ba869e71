import { forkEm, type JobSpec } from "@imprint/runtime";
import type { OpenApiProcessorDeps } from "../../deps.js";
import { fetchSource, ProcessingAborted } from "./fetch-source.js";
import { claimNextSpec, finishSpec, releaseSpec, type ClaimedSpec } from "./claims.js";
import type { ProcessingOutcome } from "./outcome.js";
import { parseSpecDocument } from "./parse-document.js";

/** Fetches and validates one claimed source; failures of the source become an outcome, not an exception. */
export async function processSource(
  claim: ClaimedSpec,
  deps: Pick<OpenApiProcessorDeps, "fetchPolicy" | "limits">,
  stopSignal: AbortSignal,
): Promise<ProcessingOutcome> {
  const fetched = await fetchSource(claim.sourceUrl, deps.fetchPolicy, deps.limits, stopSignal);
  if ("code" in fetched) return { ok: false, failure: fetched };
  const parsed = await parseSpecDocument(fetched.bytes, deps.limits);
  if ("code" in parsed) return { ok: false, failure: parsed };
  return { ok: true, document: parsed };
}

/** The processing job's name: its lease in `job_leases`, and what submissions wake. */
export const OPENAPI_PROCESSING_JOB = "openapi-processing";

/**
 * OpenAPI processing as a background job of the runtime's job runner, so one replica at a time
 * works the `openapi_specs` queue (see jobs.ts): a run processes the waiting specifications one
 * after the other until none is left. It runs every `pollIntervalMs` (other replicas'
 * submissions, expired claims) and at once when this replica queues a source. Stopping aborts the
 * fetch under way and hands its specification back to the queue.
 */
export function openApiProcessingJob(deps: OpenApiProcessorDeps): JobSpec {
  return {
    name: OPENAPI_PROCESSING_JOB,
    intervalMs: deps.limits.pollIntervalMs,
    run: async (signal) => {
      try {
        while (!signal.aborted && (await processNext(deps, signal)));
      } catch (error) {
        deps.logger.error("OpenAPI processing failed; the specification is retried when its lease expires", { err: error });
      }
    },
  };
}

/** Processes the next queued specification; false when there was none. */
export async function processNext(deps: OpenApiProcessorDeps, signal: AbortSignal): Promise<boolean> {
  const claim = await forkEm(deps.orm).transactional((tx) => claimNextSpec(tx, deps, deps.limits.leaseMs));
  if (!claim) return false;
  const logger = deps.logger.child({ specId: claim.specId, generation: claim.generation });
  let outcome: ProcessingOutcome;
  try {
    outcome = await processSource(claim, deps, signal);
  } catch (error) {
    if (error instanceof ProcessingAborted) {
      await releaseSpec(forkEm(deps.orm), claim);
      return true;
    }
    throw error;
  }
  const result = await finishSpec(forkEm(deps.orm), deps, claim, outcome);
  if (result.recorded) {
    logger.info("OpenAPI specification processed", { ok: outcome.ok, versionId: result.versionId, newVersion: result.newVersion });
  } else {
    logger.info("OpenAPI processing result dropped", { reason: result.reason });
  }
  return true;
}
