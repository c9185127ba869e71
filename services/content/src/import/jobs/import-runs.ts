import { forkEm, type JobSpec } from "@imprint/runtime";
import { IMPORT_RUNS_JOB } from "../domain/import-run.js";
import { executeImportRun } from "./execute-run.js";
import { claimNextRun } from "./run-claims.js";
import type { ImportRunDeps } from "../../deps.js";

/**
 * Import runs as a background job of the runtime's job runner, so one replica at a time works the
 * `import_runs` queue: a run executes up to `concurrency` runs side by side, claiming the next as
 * a slot frees (and looking again every `pollIntervalMs` while runs are under way), until the
 * queue is empty. It runs every `pollIntervalMs` (other replicas' runs, expired claims) and at once
 * when this replica starts a run. Stopping aborts the runs under way and hands them back.
 */
export function importRunsJob(deps: ImportRunDeps): JobSpec {
  const limits = deps.runLimits;
  return {
    name: IMPORT_RUNS_JOB,
    intervalMs: limits.pollIntervalMs,
    run: async (signal) => {
      const active = new Set<Promise<unknown>>();
      const stopped = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
      try {
        while (!signal.aborted) {
          while (active.size < limits.concurrency && !signal.aborted) {
            const claim = await forkEm(deps.orm).transactional((tx) => claimNextRun(tx, deps, limits.leaseMs));
            if (!claim) break;
            const execution: Promise<unknown> = executeImportRun(claim, deps, signal)
              .catch((error: unknown) =>
                deps.logger.error("import run failed; it is taken over when its claim runs out", { import_run_id: claim.id, err: error }),
              )
              .finally(() => active.delete(execution));
            active.add(execution);
          }
          if (active.size === 0) return;
          // A slot frees, the poll interval passes (runs queued on other replicas), or the job stops.
          let timer: NodeJS.Timeout | undefined;
          const tick = new Promise<void>((resolve) => {
            timer = setTimeout(resolve, limits.pollIntervalMs);
            timer.unref();
          });
          await Promise.race([...active, tick, stopped]);
          clearTimeout(timer);
        }
      } finally {
        await Promise.allSettled([...active]);
      }
    },
  };
}
