import { trace } from "@opentelemetry/api";

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** JSON lines on stdout, one per event, with the active trace and span ids. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

function serializeError(error: unknown): unknown {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, stack: error.stack, ...("code" in error ? { code: error.code } : {}) };
  }
  return error;
}

export function createLogger(
  service: string,
  options: { level?: LogLevel; base?: LogFields; write?: (line: string) => void } = {},
): Logger {
  const threshold = LEVEL_RANK[options.level ?? (process.env.LOG_LEVEL as LogLevel | undefined) ?? "info"] ?? LEVEL_RANK.info;
  const write = options.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const base = { service, ...options.base };

  const log = (level: LogLevel, message: string, fields?: LogFields) => {
    if (LEVEL_RANK[level] < threshold) return;
    const spanContext = trace.getActiveSpan()?.spanContext();
    const record: LogFields = { time: new Date().toISOString(), level, msg: message, ...base };
    if (spanContext) {
      record.trace_id = spanContext.traceId;
      record.span_id = spanContext.spanId;
    }
    if (fields) for (const [key, value] of Object.entries(fields)) record[key] = key === "err" ? serializeError(value) : value;
    write(JSON.stringify(record));
  };

  return {
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    child: (fields) => createLogger(service, { ...options, base: { ...options.base, ...fields } }),
  };
}
