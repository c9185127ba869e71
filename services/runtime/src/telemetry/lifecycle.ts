import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** Key under which the preload registers its shutdown (a symbol: the preload may be loaded from a different copy of the runtime). */
export const TELEMETRY_SHUTDOWN_KEY = Symbol.for("imprint.telemetry.shutdown");

/** Flushes and stops tracing if the preload started it; a no-op otherwise. */
export async function shutdownTelemetry(): Promise<void> {
  const shutdown = (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN_KEY];
  if (typeof shutdown === "function") await (shutdown as () => Promise<void>)();
}

/** Answers a request itself (true), or leaves it to the server's listeners (false). */
export type EarlyAnswer = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Lets `answer` take `server`'s requests before its "request" event is emitted: what it answers
 * never reaches the listeners nor the HTTP instrumentation, which wraps `Server.prototype.emit` and
 * would otherwise give each one a context, bound emitters and a span (or, when told to ignore it,
 * still the context and the bindings). For answers replayed whole from memory, e.g. the reader's
 * kept pages: no I/O and no log line, nothing a trace would show, and the instrumentation cost more
 * than the answer (docs/benchmarks.md § Reader). `answer` must be cheap and synchronous. Answers the
 * function that removes it again.
 */
export function answerBeforeTracing(server: Server, answer: EarlyAnswer): () => void {
  const inherited = Object.getPrototypeOf(server) as { emit: (this: Server, event: string | symbol, ...args: unknown[]) => boolean };
  // Looked up on each event, not captured: instrumentation enabled or disabled later still applies.
  server.emit = function emit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request" && answer(args[0] as IncomingMessage, args[1] as ServerResponse)) return true;
    return inherited.emit.call(this, event, ...args);
  } as Server["emit"];
  return () => {
    delete (server as Partial<Pick<Server, "emit">>).emit;
  };
}
