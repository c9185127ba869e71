import { isIP } from "node:net";
import { z } from "zod";
import { LOG_FORMATS } from "./logger.js";
import { isGrpcAddressSetting } from "./grpc/targets.js";
import { TrustedProxies, trustedProxyProblem } from "./rate-limit/client-address.js";

/**
 * Reads and validates configuration from environment variables at start-up. Every problem is
 * listed at once, so an operator fixes a broken deployment in one go instead of one error per restart.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export function loadConfig<Shape extends z.ZodRawShape>(shape: Shape, env: Record<string, string | undefined> = process.env): z.infer<z.ZodObject<Shape>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".");
    const value = env[name];
    return value === undefined ? `${name}: ${issue.message} (not set)` : `${name}: ${issue.message} (got "${value}")`;
  });
  throw new ConfigError(problems);
}

/** SHUTDOWN_DRAIN_MS by default: about how long load balancers take to see a pod unready and stop sending it calls. */
export const DEFAULT_SHUTDOWN_DRAIN_MS = 5_000;

/** Reusable environment variable shapes. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: () => z.string().url(),
  boolean: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0", "yes", "no"])
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true" || v === "1" || v === "yes"),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** SHUTDOWN_DRAIN_MS: milliseconds a stopping process keeps serving while unready (0: none). */
  drainMs: (fallback = DEFAULT_SHUTDOWN_DRAIN_MS) => z.coerce.number().int().min(0).default(fallback),
  /** A `host:port` gRPC address (an IPv6 host in brackets). */
  /**
   * A gRPC peer: `host:port`, a comma-separated list of them (every copy; calls balance between
   * them), or a `dns:` target such as `dns:///imprint-content-headless:50051` (every address of
   * the name is a copy, re-resolved).
   */
  grpcAddress: () => z.string().refine(isGrpcAddressSetting, "must be a host:port gRPC address, a comma-separated list of them, or a dns:///host:port target"),
  /** A durable consumer's name: one per deployment (tests give each instance its own). */
  consumerName: (fallback: string) =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
      .default(fallback),
  logLevel: () => z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Unset: the logger picks pretty on a terminal, json otherwise (createLogger reads it itself). */
  logFormat: () => z.enum(LOG_FORMATS, { error: "must be pretty or json (unset: pretty on a terminal, json otherwise)" }).optional(),
  nonNegativeInt: (fallback: number) => z.coerce.number().int().min(0).default(fallback),
  /** TRUSTED_PROXIES: comma-separated addresses and CIDR ranges whose X-Forwarded-For is believed; none by default. */
  trustedProxies: () =>
    z
      .string()
      .default("")
      .superRefine((text, ctx) => {
        for (const entry of text.split(",").map((part) => part.trim())) {
          const problem = entry === "" ? undefined : trustedProxyProblem(entry);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        }
      })
      .transform((text) => TrustedProxies.parse(text)),
  /** RATE_LIMIT_WINDOW_MS: the fixed window rate limits count in, aligned on the epoch (at most 5 minutes, as the shared counts are kept 10). */
  rateLimitWindowMs: () => z.coerce.number().int().min(100).max(300_000).default(60_000),
  /**
   * IMPRINT_FETCH_DNS_SERVERS: comma-separated DNS servers (`address`, `address:port`, `[v6]:port`)
   * the fetch guard asks instead of the system resolver; empty (the default): the system's.
   */
  dnsServers: () =>
    z
      .string()
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((server) => server.trim())
          .filter((server) => server !== ""),
      )
      .refine((servers) => servers.every(isDnsServer), "must be comma-separated IP addresses, each with an optional :port (IPv6 in brackets with a port)"),
  /** METRICS_TOKEN: the bearer token /metrics asks for (unset: none); Prometheus sends it with `authorization`. */
  metricsToken: () => z.string().min(16, "must be at least 16 characters (unset: /metrics asks for none)").optional(),
  /** A port that may be left out (unset or empty: undefined; 0: a free one). */
  optionalPort: () =>
    z
      .string()
      .regex(/^\d*$/, "must be a port number (0: a free one), or empty for none")
      .optional()
      .transform((value) => (value === undefined || value === "" ? undefined : Number(value)))
      .refine((port) => port === undefined || port <= 65535, "must be at most 65535"),
};

/** `address`, `address:port` or `[ipv6]:port`, as dns.setServers takes them. */
function isDnsServer(server: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
  const withPort = /^([^:]+):(\d{1,5})$/.exec(server);
  const [address, port] = bracketed ? [bracketed[1]!, bracketed[2]] : withPort ? [withPort[1]!, withPort[2]] : [server, undefined];
  return isIP(address) !== 0 && (port === undefined || (Number(port) > 0 && Number(port) < 65536));
}

/** Settings every service shares: its gRPC listener, its database, NATS. */
export const serviceConfigShape = {
  GRPC_HOST: z.string().default("127.0.0.1"),
  GRPC_PORT: env.port(0),
  /**
   * Also serve gRPC's channelz service (grpc.channelz.v1.Channelz) on GRPC_PORT: how many calls this
   * server started, succeeded and failed, per socket too (grpcdebug reads it). Off by default: it
   * tells whoever reaches the port about the process's connections.
   */
  GRPC_CHANNELZ: env.boolean(false),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL"),
  NATS_URL: z.string().regex(/^(nats|tls):\/\//, "must be a nats:// URL"),
  /** Replicas of the JetStream streams this service creates or consumes (3 on a three-server cluster). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * Age after which the service's event stream drops an event (default 7 days; 0: never). A consumer
   * stopped longer than this misses the events it did not read (its projections need a repair).
   */
  NATS_STREAM_MAX_AGE_MS: env
    .nonNegativeInt(7 * 24 * 3_600_000)
    .refine((ms) => ms === 0 || ms >= 120_000, "must be 0 (no limit) or at least 120000 (JetStream's duplicate window)"),
  /** Size past which the service's event stream drops its oldest events (default 0: no limit). */
  NATS_STREAM_MAX_BYTES: env.nonNegativeInt(0),
  /**
   * How long consumers remember the events they handled (processed_events), pruned by a job of every
   * service. Longer than the stream's max age (default 8 days > 7): an older event is gone from the
   * stream, so it can no longer be redelivered.
   */
  PROCESSED_EVENTS_RETENTION_MS: env.positiveInt(8 * 24 * 3_600_000),
  SKIP_MIGRATIONS: env.boolean(false),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  /** On SIGTERM: how long the service keeps serving, unready, before it stops taking calls (see runMain). */
  SHUTDOWN_DRAIN_MS: env.drainMs(),
  /** Events each of the service's durable consumers handles at once (one at a time per key). */
  EVENT_CONCURRENCY: env.positiveInt(4),
  /**
   * Port serving the process's Prometheus metrics at /metrics (unset or empty: none; 0: a free one,
   * logged). Services of one process asking for the same port share it: one registry per process.
   */
  METRICS_PORT: env.optionalPort(),
  /** Address the metrics port listens on (0.0.0.0 in a container, so Prometheus reaches it). */
  METRICS_HOST: z.string().default("127.0.0.1"),
  /** When set, /metrics answers 401 without `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: env.metricsToken(),
};
