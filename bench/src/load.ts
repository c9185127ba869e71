import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  /** Sent as `Authorization: Bearer …` with `Accept: application/json`, unless `headers` are given. */
  token?: string;
  /** The request headers, instead of the token's (e.g. a browser's `Accept` and a cookie). */
  headers?: Record<string, string>;
  /** POST this JSON body (sent as `Content-Type: application/json`) instead of a GET. */
  body?: unknown;
  connections: number;
  durationSeconds: number;
  /** A discarded run first, so JIT, pools and caches are warm when measuring. */
  warmupSeconds: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second over the measured run. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
}

function fire(
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  connections: number,
  durationSeconds: number,
): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: durationSeconds,
    headers,
    ...(body === undefined ? {} : { method: "POST" as const, body }),
    // Every request must finish well inside the run; a stuck one counts as a timeout.
    timeout: 10,
  });
}

/** Drives GET `url` (POST with `body`) with `connections` concurrent keep-alive connections for a fixed duration. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = {
    ...(options.headers ?? { authorization: `Bearer ${options.token ?? ""}`, accept: "application/json" }),
    ...(body === undefined ? {} : { "content-type": "application/json" }),
  };
  if (options.warmupSeconds > 0) await fire(options.url, headers, body, options.connections, options.warmupSeconds);
  return toLoadResult(await fire(options.url, headers, body, options.connections, options.durationSeconds));
}

/** The figures every benchmark reports from one autocannon run. */
export function toLoadResult(result: autocannon.Result): LoadResult {
  const ok = result["2xx"];
  return {
    requestsPerSecond: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    total: ok + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
  };
}
