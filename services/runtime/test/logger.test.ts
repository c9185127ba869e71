import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { ConfigError, env, loadConfig, serviceConfigShape } from "../src/config.js";
import { createLogger, formatPrettyLine, logOutputFromEnv, type LoggerOptions } from "../src/logger.js";

function capture(options: LoggerOptions = {}) {
  const lines: string[] = [];
  const logger = createLogger("gateway", { write: (line) => lines.push(line), ...options });
  return { logger, lines };
}

const TIME = /^\d{2}:\d{2}:\d{2}\.\d{3} /;

describe("json lines", () => {
  it("are what a custom sink gets unless asked otherwise: one object per event, with the base fields", () => {
    const { logger, lines } = capture();
    logger.child({ component: "relay" }).info("request", { method: "GET", status: 404, reason: "Organization not found" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      level: "info",
      msg: "request",
      service: "gateway",
      component: "relay",
      method: "GET",
      status: 404,
      reason: "Organization not found",
    });
  });

  it("serialize errors with their name, message, code and stack", () => {
    const { logger, lines } = capture({ format: "json" });
    const error = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    trace.getTracer("test").startActiveSpan("work", (span) => {
      logger.error("failed", { err: error });
      span.end();
    });
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record.err).toMatchObject({ name: "Error", message: "connect ECONNREFUSED", code: "ECONNREFUSED", stack: expect.stringContaining("at ") });
  });

  it("respect the level", () => {
    const { logger, lines } = capture({ level: "warn" });
    logger.info("hidden");
    logger.warn("shown");
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(["shown"]);
  });
});

describe("pretty lines", () => {
  it("show time, service, level, message and the fields that matter as key=value", () => {
    const { logger, lines } = capture({ format: "pretty", color: false });
    logger.info("request", {
      request_id: "9b2f0c6e-0d4f-4f55-9a43-2f4f9c1b7d10",
      method: "GET",
      path: "/v1/orgs/abc/members",
      status: 404,
      duration_ms: 3.21,
      user_id: "u1",
      reason: "Organization abc not found",
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(TIME);
    expect(lines[0]!.replace(TIME, "")).toBe(
      'gateway INFO  request method=GET path=/v1/orgs/abc/members status=404 duration_ms=3.21 reason="Organization abc not found"',
    );
  });

  it("leave out the service when the output is already prefixed with the process name", () => {
    const { logger, lines } = capture({ format: "pretty", color: false, prefixed: true });
    logger.warn("outbox relay round failed", { attempt: 2 });
    expect(lines[0]!.replace(TIME, "")).toBe("WARN  outbox relay round failed attempt=2");
  });

  it("drop trace and span ids, show child fields, quote values with spaces and render objects as JSON", () => {
    const { logger, lines } = capture({ format: "pretty", color: false, prefixed: true });
    trace.getTracer("test").startActiveSpan("work", (span) => {
      logger
        .child({ component: "event-consumer", eventId: "e-1" })
        .info("applied migrations", { migrations: ["M1", "M2"], empty: "", none: undefined, nothing: null });
      span.end();
    });
    expect(lines[0]!.replace(TIME, "")).toBe('INFO  applied migrations component=event-consumer migrations=["M1","M2"] empty="" nothing=null');
  });

  it("print an error's message; its stack only for error lines or when debugging", () => {
    const error = Object.assign(new TypeError("x is not a function"), { code: "E_X" });
    const info = capture({ format: "pretty", color: false, prefixed: true });
    info.logger.warn("step failed", { err: error });
    expect(info.lines[0]!.replace(TIME, "")).toBe('WARN  step failed err="TypeError: x is not a function (E_X)"');

    info.logger.error("unhandled error", { err: error });
    const [first, ...frames] = info.lines[1]!.split("\n");
    expect(first!.replace(TIME, "")).toBe('ERROR unhandled error err="TypeError: x is not a function (E_X)"');
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^ {4}at /);

    const debug = capture({ format: "pretty", color: false, prefixed: true, level: "debug" });
    debug.logger.warn("step failed", { err: error });
    expect(debug.lines[0]!.split("\n").length).toBeGreaterThan(1);
  });

  it("color the level and dim the time and keys when asked", () => {
    const line = formatPrettyLine({
      time: new Date(2026, 0, 2, 3, 4, 5, 6),
      level: "error",
      service: "content",
      message: "boom",
      fields: { a: 1 },
      color: true,
      prefixed: false,
      stack: false,
    });
    expect(line).toBe("\u001b[2m03:04:05.006\u001b[0m content \u001b[31mERROR\u001b[0m boom \u001b[2ma=\u001b[0m1");
  });

  it("cut very long values", () => {
    const line = formatPrettyLine({
      time: new Date(),
      level: "info",
      service: "s",
      message: "m",
      fields: { big: "x".repeat(1000) },
      color: false,
      prefixed: true,
      stack: false,
    });
    expect(line.endsWith(`big=${"x".repeat(300)}…`)).toBe(true);
  });
});

describe("LOG_FORMAT and friends", () => {
  it("default to pretty on a terminal and json otherwise; LOG_FORMAT wins", () => {
    expect(logOutputFromEnv({}, true).format).toBe("pretty");
    expect(logOutputFromEnv({}, false).format).toBe("json");
    expect(logOutputFromEnv({ LOG_FORMAT: "json" }, true).format).toBe("json");
    expect(logOutputFromEnv({ LOG_FORMAT: "pretty" }, false).format).toBe("pretty");
    // An invalid value is the configuration check's to report; the logger keeps the default meanwhile.
    expect(logOutputFromEnv({ LOG_FORMAT: "fancy" }, false).format).toBe("json");
  });

  it("color on a terminal or with FORCE_COLOR, never with NO_COLOR", () => {
    expect(logOutputFromEnv({}, true).color).toBe(true);
    expect(logOutputFromEnv({}, false).color).toBe(false);
    expect(logOutputFromEnv({ FORCE_COLOR: "1" }, false).color).toBe(true);
    expect(logOutputFromEnv({ FORCE_COLOR: "0" }, false).color).toBe(false);
    expect(logOutputFromEnv({ NO_COLOR: "1" }, true).color).toBe(false);
    expect(logOutputFromEnv({ NO_COLOR: "1", FORCE_COLOR: "1" }, false).color).toBe(false);
  });

  it("leave the service name out when LOG_PREFIXED=true", () => {
    expect(logOutputFromEnv({ LOG_PREFIXED: "true" }, false).prefixed).toBe(true);
    expect(logOutputFromEnv({}, false).prefixed).toBe(false);
  });

  it("are validated with the other service settings", () => {
    const base = { DATABASE_URL: "postgres://localhost/x", NATS_URL: "nats://localhost:4222" };
    expect(loadConfig(serviceConfigShape, base).LOG_FORMAT).toBeUndefined();
    expect(loadConfig(serviceConfigShape, { ...base, LOG_FORMAT: "pretty" }).LOG_FORMAT).toBe("pretty");
    expect(() => loadConfig({ LOG_FORMAT: env.logFormat() }, { LOG_FORMAT: "text" })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: env.logFormat() }, { LOG_FORMAT: "text" })).toThrow(
      'LOG_FORMAT: must be pretty or json (unset: pretty on a terminal, json otherwise) (got "text")',
    );
  });
});
