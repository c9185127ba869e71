import { ConfigError } from "./config.js";
import type { Logger } from "./logger.js";
import { keepMemoryReducerWorking } from "./memory-reducer.js";
import { shutdownTelemetry } from "./telemetry/lifecycle.js";

/** Process hooks `runMain` uses; tests pass their own. */
export interface ProcessHost {
  once(signal: "SIGTERM" | "SIGINT", listener: () => void): unknown;
  on(signal: "SIGTERM" | "SIGINT", listener: () => void): unknown;
  exit(code: number): void;
  writeError(text: string): void;
}

const realProcess: ProcessHost = {
  once: (signal, listener) => process.once(signal, listener),
  on: (signal, listener) => process.on(signal, listener),
  exit: (code) => process.exit(code),
  writeError: (text) => process.stderr.write(text),
};

/**
 * What `runMain` starts. `drain`, when present, turns the process's readiness off at once and
 * resolves when its drain period (SHUTDOWN_DRAIN_MS) is over or `signal` aborts, while every call,
 * new ones included, is still served: load balancers see it unready and move their traffic first.
 */
export interface Drainable {
  drain?(signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts (a drain cut short). */
export function drainPeriod(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * An HTTP target's drain: says so in the log (its /readyz answers 503 from now on, every request is
 * still answered), then waits its drain period (drainPeriod).
 */
export function announceDrain(logger: Logger, ms: number, signal?: AbortSignal): Promise<void> {
  logger.info("draining: /readyz answers 503, requests still served", { drainMs: ms });
  return drainPeriod(ms, signal);
}

/**
 * Stops an HTTP server: it takes no new connection, its idle ones close now, busy ones once their
 * request is answered, and whatever is left after `graceMs` is cut. Resolves once all are closed.
 */
export function closeHttpServer(server: import("node:http").Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Entry point of a service process: starts it; on SIGTERM/SIGINT drains it (readiness off, still
 * serving, see Drainable) then stops it once and exits 0. A second signal during the drain ends
 * the drain; a signal after that exits 1 at once. A configuration error prints its problem list
 * (no stack) and exits 1; any other start failure is logged and exits 1.
 */
export function runMain(start: () => Promise<Drainable>, logger: Logger, host: ProcessHost = realProcess): void {
  // A long-running process gives back what a burst of work took once it is quiet again.
  const stopMemoryReducer = keepMemoryReducerWorking();
  let phase: "running" | "draining" | "stopping" = "running";
  const endDrain = new AbortController();
  const exit = async (code: number) => {
    stopMemoryReducer();
    await shutdownTelemetry();
    host.exit(code);
  };
  const starting = Promise.resolve().then(start);
  const onSignal = (signal: string) => {
    if (phase === "draining") {
      logger.warn("second signal; ending the drain", { signal });
      endDrain.abort();
      return;
    }
    if (phase === "stopping") {
      logger.warn("another signal while stopping; exiting now", { signal });
      host.exit(1);
      return;
    }
    phase = "draining";
    logger.info("stopping", { signal });
    starting
      .then(async (running) => {
        if (running.drain) {
          logger.info("draining: unready, still serving");
          await running.drain(endDrain.signal);
        }
        phase = "stopping";
        await running.stop();
      })
      .then(
        () => exit(0),
        (error: unknown) => {
          logger.error("stop failed", { err: error });
          return exit(1);
        },
      )
      .catch(() => host.exit(1));
  };
  host.on("SIGTERM", () => onSignal("SIGTERM"));
  host.on("SIGINT", () => onSignal("SIGINT"));
  starting.catch(async (error: unknown) => {
    if (error instanceof ConfigError) {
      host.writeError(`${error.message}\n`);
    } else {
      logger.error("failed to start", { err: error });
    }
    await exit(1);
  });
}

/**
 * Entry point of a one-shot process (e.g. a service's migrate mode): runs `task` once and exits 0
 * when it succeeds, 1 when it fails (a configuration error prints its problem list, no stack).
 * Signals keep Node's default: the process ends at once, and PostgreSQL rolls back what was open.
 */
export function runTask(task: () => Promise<unknown>, logger: Logger, host: ProcessHost = realProcess): void {
  const exit = async (code: number) => {
    await shutdownTelemetry();
    host.exit(code);
  };
  Promise.resolve()
    .then(task)
    .then(
      () => exit(0),
      async (error: unknown) => {
        if (error instanceof ConfigError) {
          host.writeError(`${error.message}\n`);
        } else {
          logger.error("failed", { err: error });
        }
        await exit(1);
      },
    )
    .catch(() => host.exit(1));
}
