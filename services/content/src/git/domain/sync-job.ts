/** The job that imports what pushes announced (webhooks, polls), one space at a time. */
export const GIT_SYNC_JOB = "git-sync";
/** The job that asks connected repositories for their ref's commit (`git ls-remote`), for hosts without webhooks. */
export const GIT_POLL_JOB = "git-sync-poll";

/** How long the n-th retry (1-based) of a failed sync waits: doubling from `baseMs`, at most an hour. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 3_600_000);
}
