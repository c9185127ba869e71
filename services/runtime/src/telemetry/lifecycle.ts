import type { IncomingMessage } from "node:http";

/** Key under which the preload registers its shutdown (a symbol: the preload may be loaded from a different copy of the runtime). */
export const TELEMETRY_SHUTDOWN_KEY = Symbol.for("imprint.telemetry.shutdown");

/** Flushes and stops tracing if the preload started it; a no-op otherwise. */
export async function shutdownTelemetry(): Promise<void> {
  const shutdown = (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN_KEY];
  if (typeof shutdown === "function") await (shutdown as () => Promise<void>)();
}

/**
 * Key under which a process lists the incoming HTTP requests it answers without any work worth a
 * span: the preload's HTTP instrumentation asks every predicate, and one that says yes leaves the
 * request untraced (a symbol, for the same reason as the shutdown's).
 */
export const UNTRACED_REQUESTS_KEY = Symbol.for("imprint.telemetry.untraced-requests");

/** Whether an incoming request is answered without work worth a span (see {@link leaveRequestsUntraced}). */
export type UntracedRequest = (request: IncomingMessage) => boolean;

/**
 * Leaves the incoming requests `predicate` names without a span, e.g. the reader's answers kept
 * whole in memory: no I/O, no log line, nothing a trace would show, and the span would cost more
 * than the answer (docs/benchmarks.md § Reader). Answers the function that removes it again. The
 * predicate must be cheap and must name only its own server's requests (one process may host
 * several servers).
 */
export function leaveRequestsUntraced(predicate: UntracedRequest): () => void {
  const registry = globalThis as Record<symbol, unknown>;
  const predicates = (registry[UNTRACED_REQUESTS_KEY] ??= new Set<UntracedRequest>()) as Set<UntracedRequest>;
  predicates.add(predicate);
  return () => predicates.delete(predicate);
}
