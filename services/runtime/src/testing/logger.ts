import { createLogger, type LogFields, type Logger, type LogLevel } from "../logger.js";

/** A line a logger wrote, parsed. */
export type LogLine = LogFields & { level: LogLevel; msg: string };

export interface TestLogger extends Logger {
  /** The lines logged at `level` or above, oldest first, when recording. */
  readonly lines: LogLine[];
}

/**
 * The logger tests hand to services: quiet by default (errors only, and those dropped), so a test
 * that provokes failures does not flood the output. `record` keeps the lines for assertions,
 * `stderr` shows them (e.g. upstream errors while an end-to-end test runs).
 */
export function testLogger(service = "test", options: { level?: LogLevel; record?: boolean; stderr?: boolean } = {}): TestLogger {
  const lines: LogLine[] = [];
  const logger = createLogger(service, {
    level: options.level ?? "error",
    format: "json",
    write: (line) => {
      if (options.record) lines.push(JSON.parse(line) as LogLine);
      if (options.stderr) process.stderr.write(line + "\n");
    },
  });
  return { ...logger, lines };
}
