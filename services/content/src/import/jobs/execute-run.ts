import { AppError, findOwnedOrNull, forkEm } from "@imprint/runtime";
import { ImportRun, type ImportRunPageRecord } from "../domain/import-run.js";
import { performImport, requireImportTarget, type ImportResult } from "../use-cases/import-content.js";
import { checkpointRun, completeRun, failRun, releaseRun, type ClaimedRun, type RunProgress } from "./run-claims.js";
import type { ImportRunDeps } from "../../deps.js";

/** Thrown at a checkpoint when the run is no longer the worker's to write (cancelled, or taken over). */
class RunStopped extends Error {
  override readonly name = "RunStopped";
}

/** How a run's execution ended, for the log line. */
type Outcome = "completed" | "failed" | "stopped" | "handed back";

/**
 * Executes one claimed run with the import's shared implementation ({@link performImport}), as the
 * user who started it (whose edit rights are checked again). Checkpoints (every page and image,
 * and a heartbeat while waiting on the network) renew the claim, record the counts and find out
 * about a cancel; the commit happens only if the run is still this claim's and in progress, in
 * the transaction that marks it completed. A run whose workers vanished too often is failed; one
 * whose worker is stopping is handed back to the queue. Logs the run's figures when it ends.
 */
export async function executeImportRun(claim: ClaimedRun, deps: ImportRunDeps, stopSignal: AbortSignal): Promise<Outcome> {
  const limits = deps.runLimits;
  const started = performance.now();
  const logger = deps.logger.child({ import_run_id: claim.id, attempt: claim.attempt });
  const em = forkEm(deps.orm);
  const run = await em.findOneOrFail(ImportRun, { id: claim.id });
  const figures: Record<string, unknown> = { pages_fetched: 0, pages_failed: 0, files_fetched: 0 };
  const finish = (outcome: Outcome, extra: Record<string, unknown> = {}): Outcome => {
    logger.info("import run finished", {
      outcome,
      space_id: run.spaceId,
      change_request_id: run.changeRequestId ?? undefined,
      ...figures,
      ...extra,
      interruptions: claim.interruptions || undefined,
      duration_ms: Math.round(performance.now() - started),
    });
    return outcome;
  };

  if (claim.interruptions > limits.maxInterruptions) {
    const times = claim.interruptions === 1 ? "once" : `${claim.interruptions} times`;
    const reason = `the import was interrupted ${times} (its worker stopped answering); start it again`;
    await failRun(forkEm(deps.orm), deps, claim, reason);
    return finish("failed", { reason });
  }

  const controller = new AbortController();
  const stop = () => controller.abort();
  stopSignal.addEventListener("abort", stop);
  if (stopSignal.aborted) stop();
  let lost = false;
  const checkpoint = async (progress: RunProgress = {}) => {
    if (!(await checkpointRun(forkEm(deps.orm), deps, claim, limits.leaseMs, progress))) {
      lost = true;
      controller.abort();
    }
    if (controller.signal.aborted) throw new RunStopped("the import run stopped");
  };
  // While the import waits on the network: renew the claim, and notice a cancel.
  const heartbeat = setInterval(() => void checkpoint().catch(() => {}), limits.heartbeatMs);
  heartbeat.unref();

  let planned: ImportRunPageRecord[] = [];
  try {
    const caller = { userId: run.createdBy, tokenId: run.createdByTokenId ?? "" };
    const target = { spaceId: run.spaceId, changeRequestId: run.changeRequestId ?? "", underPageId: run.underPageId ?? null };
    await requireImportTarget(em, deps, caller, target, "target.changeRequest");
    const result: ImportResult = await performImport(em, { caller, target, url: new URL(run.url) }, deps, {
      signal: controller.signal,
      onProgress: async (progress) => {
        Object.assign(figures, { pages_fetched: progress.pagesFetched, pages_failed: progress.pagesFailed, files_fetched: progress.filesFetched });
        await checkpoint(progress);
      },
      onPlanned: async (pages, totals) => {
        planned = pages.map((page) => ({ ...page, complete: false }));
        await checkpoint({ pages: planned, totalResources: totals.totalResources });
      },
      beforeCommit: async (tx) => {
        const current = await findOwnedOrNull(tx, ImportRun, {}, claim.id, { lock: true, refresh: true });
        if (current?.status !== "in-progress" || current.attempt !== claim.attempt) {
          lost = true;
          controller.abort();
          throw new RunStopped("the import run stopped before its commit");
        }
      },
      afterCommit: async (tx, committed) => {
        await completeRun(tx, deps, claim, {
          revisionId: committed.revisionId,
          importedResources: committed.importedResources,
          totalResources: committed.totalResources,
          pages: planned.map((page) => ({ ...page, complete: true })),
        });
      },
    });
    return finish("completed", { revision_id: result.revisionId, imported_resources: result.importedResources, total_resources: result.totalResources });
  } catch (error) {
    // Cancelled, or taken over by another worker: nothing was written, nothing more to record.
    if (lost) return finish("stopped");
    if (stopSignal.aborted) {
      await releaseRun(forkEm(deps.orm), deps, claim);
      return finish("handed back");
    }
    const known = error instanceof AppError && error.code !== "internal" && error.code !== "unavailable";
    if (!known) logger.error("import run failed", { err: error });
    const reason = known ? error.message : "the import failed on an internal error";
    const recorded = await failRun(forkEm(deps.orm), deps, claim, reason);
    return finish(recorded ? "failed" : "stopped", recorded ? { reason } : {});
  } finally {
    clearInterval(heartbeat);
    stopSignal.removeEventListener("abort", stop);
  }
}
