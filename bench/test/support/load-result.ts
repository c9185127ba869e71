import type { LoadResult } from "../../src/load.js";

/** A 10-second load run for the report tests: `requestsPerSecond`, a p99 (max twice it) and the p50 given. */
export function loadResult(requestsPerSecond: number, p99Ms: number, p50Ms: number, non2xx = 0): LoadResult {
  return { requestsPerSecond, p50Ms, p99Ms, maxMs: p99Ms * 2, total: requestsPerSecond * 10, non2xx, errors: 0, timeouts: 0, durationSeconds: 10 };
}
