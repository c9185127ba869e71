/** Key under which the preload registers its shutdown (a symbol: the preload may be loaded from a different copy of the runtime). */
export const TELEMETRY_SHUTDOWN_KEY = Symbol.for("imprint.telemetry.shutdown");

/** Flushes and stops tracing if the preload started it; a no-op otherwise. */
export async function shutdownTelemetry(): Promise<void> {
  const shutdown = (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN_KEY];
  if (typeof shutdown === "function") await (shutdown as () => Promise<void>)();
}
