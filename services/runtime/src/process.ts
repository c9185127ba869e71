import { ConfigError } from "./config.js";
import type { Logger } from "./logger.js";
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
 * Entry point of a service process: starts it; on SIGTERM/SIGINT stops it once and exits 0 (a
 * second signal exits 1 at once). A configuration error prints its problem list (no stack) and
 * exits 1; any other start failure is logged and exits 1.
 */
export function runMain(start: () => Promise<{ stop(): Promise<void> }>, logger: Logger, host: ProcessHost = realProcess): void {
  let signalled = false;
  const exit = async (code: number) => {
    await shutdownTelemetry();
    host.exit(code);
  };
  const starting = Promise.resolve().then(start);
  const onSignal = (signal: string) => {
    if (signalled) {
      logger.warn("second signal; exiting now", { signal });
      host.exit(1);
      return;
    }
    signalled = true;
    logger.info("stopping", { signal });
    starting
      .then((running) => running.stop())
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
