import { AppError } from "@imprint/runtime";
import { retryDelayMs } from "../../domain/sync-job.js";
import type { GitDeps } from "../../../deps.js";

/** How a queued run is settled after a failure: retried at a time, or given up (until the next push or head move). */
export type FailedRunOutcome = { retryAt: Date } | { givenUp: true };

/**
 * Settles a queued import or export that failed: retried with a doubling delay while attempts are
 * left (`sync.maxAttempts` in all), else given up; either way logged with `fields`, the error's
 * message only when it is one of ours (never a stack or an internal detail).
 */
export async function settleFailedRun(
  deps: Pick<GitDeps, "logger" | "clock" | "sync">,
  run: { kind: "import" | "export"; attempts: number; fields: Record<string, unknown>; error: unknown },
  settle: (outcome: FailedRunOutcome) => Promise<void>,
): Promise<void> {
  const attempt = run.attempts + 1;
  const error = run.error instanceof AppError ? run.error.message : "internal error";
  if (attempt >= deps.sync.maxAttempts) {
    deps.logger.error(`git sync: the queued ${run.kind} failed for the last time`, { ...run.fields, attempt, error });
    await settle({ givenUp: true });
    return;
  }
  const delayMs = retryDelayMs(attempt, deps.sync.retryBaseMs);
  deps.logger.warn(`git sync: the queued ${run.kind} failed; retrying`, { ...run.fields, attempt, retry_in_ms: delayMs, error });
  await settle({ retryAt: new Date(deps.clock().getTime() + delayMs) });
}
