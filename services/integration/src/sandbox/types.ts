// The sandbox's public shapes, shared by the pool (main thread) and its workers. Types only: the
// worker imports this file, and Node strips type-only imports when it runs the TypeScript source.

export interface SandboxLimits {
  /** The script's WebAssembly memory: QuickJS heap, stack and static data. */
  memoryBytes: number;
  /** CPU time spent executing the script in one call (module evaluation included on a cold call). */
  cpuMs: number;
  /** Wall time of one call, host fetches and timers included. */
  wallMs: number;
  /** Size of the response body. */
  outputBytes: number;
}

export interface SandboxHttpRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
}

export interface SandboxHttpResponse {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

export type SandboxLogLevel = "debug" | "info" | "warn" | "error";

export interface SandboxLogLine {
  level: SandboxLogLevel;
  message: string;
  timestamp: Date;
}

/** The host's fetch for the script (the caller passes an SSRF-guarded one); rejects with an Error whose message is safe to show. */
export type SandboxFetch = (request: SandboxHttpRequest, signal: AbortSignal) => Promise<SandboxHttpResponse>;

export type SandboxFailure = "cpu_limit" | "wall_limit" | "memory_limit" | "output_limit" | "script_error" | "bad_response" | "busy";

export type SandboxOutcome =
  | { ok: true; response: SandboxHttpResponse; logs: SandboxLogLine[]; cpuMs: number; wallMs: number }
  | { ok: false; failure: SandboxFailure; reason: string; logs: SandboxLogLine[]; cpuMs: number; wallMs: number };

export interface SandboxRunInput {
  /** Identifies the script text (e.g. `${integration}@${version}`): calls with the same key may reuse a warm runtime. */
  scriptKey: string;
  script: string;
  request: SandboxHttpRequest;
  fetch: SandboxFetch;
  /** The handler's `env`: a plain object of strings. */
  env?: Record<string, string>;
}

export interface SandboxPool {
  /** Runs the script's default export `fetch(request, env, ctx)` once and answers its Response (after ctx.waitUntil promises settle, within the wall limit). `scriptKey` identifies the script text (e.g. `${integration}@${version}`) for warm reuse. */
  run(input: SandboxRunInput): Promise<SandboxOutcome>;
  /** Worker threads started and not stopped (for tests and metrics). */
  threads(): number;
  /** Stops taking calls, lets the running ones finish, then stops the workers. */
  close(): Promise<void>;
}

export interface SandboxPoolOptions {
  limits: SandboxLimits;
  /**
   * The most worker threads; each runs one call at a time. One starts with the first call; another
   * starts while a call waits and every worker has been on its call for `spareAfterMs`, or the call
   * has waited 8 times that; a worker that stays idle for `spareIdleMs` stops while another is left.
   */
  workers: number;
  /** How long every worker has been on its call, while a call waits, before the pool starts another (default 250 ms). */
  spareAfterMs?: number;
  /** How long a worker beyond the first stays idle before it stops (default 30 s). */
  spareIdleMs?: number;
  logger?: { warn(obj: object, msg: string): void };
  /** Calls waiting for a worker beyond which `run` answers `busy` (default 256). */
  maxQueuedCalls?: number;
  /** Evaluated scripts each worker keeps warm, least recently used dropped first (default 8). */
  warmScriptsPerWorker?: number;
}
