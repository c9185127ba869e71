import { trace } from "@opentelemetry/api";

// No local imports: a test runs this file straight from source (Node's type stripping).

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** `json`: one JSON object per line, for log collectors. `pretty`: one short line per event, for people. */
export const LOG_FORMATS = ["pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type LogFields = Record<string, unknown>;

/** One line on stdout per event: JSON with the active trace and span ids, or a short pretty line. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** Default: LOG_LEVEL, else info. */
  level?: LogLevel;
  /**
   * Default: LOG_FORMAT; else pretty when stdout is a terminal, json otherwise. A custom `write`
   * gets json unless asked (tests parse the lines).
   */
  format?: LogFormat;
  /** Colored levels in pretty lines. Default: stdout is a terminal or FORCE_COLOR is set, and NO_COLOR is not. */
  color?: boolean;
  /**
   * Pretty lines leave out the service name because whoever reads the output already prefixes each
   * line with it (the local launcher sets LOG_PREFIXED=true). Default: LOG_PREFIXED.
   */
  prefixed?: boolean;
  base?: LogFields;
  write?: (line: string) => void;
}

const TRUE_VALUES = new Set(["true", "1", "yes"]);

function isLogFormat(value: unknown): value is LogFormat {
  return (LOG_FORMATS as readonly unknown[]).includes(value);
}

/**
 * What the environment asks of a logger. Invalid values fall back to the defaults here; the
 * process's configuration check reports them (LOG_LEVEL, LOG_FORMAT are validated there).
 */
export function logOutputFromEnv(
  env: Record<string, string | undefined> = process.env,
  stdoutIsTerminal: boolean = process.stdout.isTTY === true,
): { format: LogFormat; color: boolean; prefixed: boolean } {
  const format = isLogFormat(env.LOG_FORMAT) ? env.LOG_FORMAT : stdoutIsTerminal ? "pretty" : "json";
  // FORCE_COLOR is Node's own convention; the launcher sets it when its terminal shows colors.
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  const color = !env.NO_COLOR && (stdoutIsTerminal || forced);
  const prefixed = TRUE_VALUES.has(env.LOG_PREFIXED ?? "");
  return { format, color, prefixed };
}

function serializeError(error: unknown): unknown {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, stack: error.stack, ...("code" in error ? { code: error.code } : {}) };
  }
  return error;
}

// ---------------------------------------------------------------------------------------------
// Pretty lines

/** Fields a person reading a terminal does not need; JSON lines keep them for correlation. */
const PRETTY_HIDDEN = new Set(["trace_id", "span_id", "request_id", "user_id", "eventId"]);
const PRETTY_VALUE_MAX = 300;
const LEVEL_LABEL: Record<LogLevel, string> = { debug: "DEBUG", info: "INFO ", warn: "WARN ", error: "ERROR" };
const LEVEL_COLOR: Record<LogLevel, string> = { debug: "90", info: "32", warn: "33", error: "31" };

const two = (n: number) => String(n).padStart(2, "0");

/** Local wall-clock time, HH:MM:SS.mmm: the date is rarely in doubt while watching a terminal. */
function clockTime(date: Date): string {
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}

function prettyValue(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value !== "" && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  else if (value instanceof Date) text = value.toISOString();
  else if (value === null || typeof value !== "object") text = String(value);
  else text = JSON.stringify(value) ?? "?";
  return text.length > PRETTY_VALUE_MAX ? `${text.slice(0, PRETTY_VALUE_MAX)}…` : text;
}

/** An error as one short text: its message (with its name or code when they add something). */
function errorText(error: Error): string {
  const named = error.name && error.name !== "Error" && error.name !== "AppError" ? `${error.name}: ${error.message}` : error.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !named.includes(code) ? `${named} (${code})` : named;
}

export interface PrettyLineInput {
  time: Date;
  level: LogLevel;
  service: string;
  message: string;
  fields: LogFields;
  color: boolean;
  prefixed: boolean;
  /** Append the stack of an `err` field (error lines, or when debugging). */
  stack: boolean;
}

/**
 * `12:34:56.789 gateway INFO  request method=GET path=/v1/x status=404 duration_ms=2.1 reason="…"`:
 * time, service (left out when `prefixed`), level, message, then the fields as key=value, without
 * ids only useful to machines. An error field shows its message; its stack follows on indented
 * lines when `stack` is set.
 */
export function formatPrettyLine(input: PrettyLineInput): string {
  const paint = (code: string, text: string) => (input.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const parts = [paint("2", clockTime(input.time))];
  if (!input.prefixed) parts.push(input.service);
  parts.push(paint(LEVEL_COLOR[input.level], LEVEL_LABEL[input.level]), input.message);
  let stack: string | undefined;
  for (const [key, value] of Object.entries(input.fields)) {
    if (value === undefined || PRETTY_HIDDEN.has(key)) continue;
    let text: string;
    if (value instanceof Error) {
      text = prettyValue(errorText(value));
      if (input.stack && value.stack) stack ??= value.stack;
    } else {
      text = prettyValue(value);
    }
    parts.push(`${paint("2", `${key}=`)}${text}`);
  }
  let line = parts.join(" ");
  if (stack) {
    // The stack's first line repeats the message shown above.
    const frames = stack.split("\n").filter((frame) => /^\s+at /.test(frame));
    if (frames.length > 0) line += `\n${frames.map((frame) => `    ${frame.trim()}`).join("\n")}`;
  }
  return line;
}

// ---------------------------------------------------------------------------------------------

export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  const fromEnv = logOutputFromEnv();
  const resolved: LoggerOptions = {
    ...options,
    level: options.level ?? (process.env.LOG_LEVEL as LogLevel | undefined),
    format: options.format ?? (options.write ? "json" : fromEnv.format),
    color: options.color ?? fromEnv.color,
    prefixed: options.prefixed ?? fromEnv.prefixed,
  };
  return buildLogger(service, resolved);
}

function buildLogger(service: string, options: LoggerOptions): Logger {
  const threshold = LEVEL_RANK[options.level ?? "info"] ?? LEVEL_RANK.info;
  const write = options.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const base = { service, ...options.base };

  const log = (level: LogLevel, message: string, fields?: LogFields) => {
    if (LEVEL_RANK[level] < threshold) return;
    if (options.format === "pretty") {
      write(
        formatPrettyLine({
          time: new Date(),
          level,
          service,
          message,
          fields: { ...options.base, ...fields },
          color: options.color === true,
          prefixed: options.prefixed === true,
          stack: level === "error" || threshold <= LEVEL_RANK.debug,
        }),
      );
      return;
    }
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
    child: (fields) => buildLogger(service, { ...options, base: { ...options.base, ...fields } }),
  };
}
