import { env, loadConfig, type LogFormat, type TrustedProxies } from "@imprint/runtime/core";
import { z } from "zod";
import { parseAllowedOrigins } from "./middleware/cors.js";
import { UPSTREAM_NAMES, UPSTREAMS, type UpstreamAddresses } from "./upstreams.js";

/** The gateway's one cache budget by default (GATEWAY_CACHE_BYTES): verified tokens and answers together. */
export const DEFAULT_GATEWAY_CACHE_BYTES = 32 * 1024 * 1024;

const baseUrl = () =>
  z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional();

/** Requests per window (RATE_LIMIT_WINDOW_MS) by default, per token and per client IP, by class of operation; docs/operations.md says why. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  token: { reads: 1800, writes: 600, expensive: 60 },
  ip: { reads: 600, writes: 120, expensive: 30 },
};

/** The classes of operation limited apart: what a request costs the stack. */
export type OperationClass = "reads" | "writes" | "expensive";
export interface RateLimits {
  /** Authenticated requests, per token. */
  token: Record<OperationClass, number>;
  /** Requests without a valid token (none, or one that failed), per client IP. */
  ip: Record<OperationClass, number>;
}

// One block, kept apart from the other settings so that it reads (and merges) as a unit.
const rateLimitShape = {
  RATE_LIMIT_ENABLED: env.boolean(true),
  RATE_LIMIT_WINDOW_MS: env.rateLimitWindowMs(),
  RATE_LIMIT_TOKEN_READS: env.positiveInt(DEFAULT_RATE_LIMITS.token.reads),
  RATE_LIMIT_TOKEN_WRITES: env.positiveInt(DEFAULT_RATE_LIMITS.token.writes),
  RATE_LIMIT_TOKEN_EXPENSIVE: env.positiveInt(DEFAULT_RATE_LIMITS.token.expensive),
  RATE_LIMIT_IP_READS: env.positiveInt(DEFAULT_RATE_LIMITS.ip.reads),
  RATE_LIMIT_IP_WRITES: env.positiveInt(DEFAULT_RATE_LIMITS.ip.writes),
  RATE_LIMIT_IP_EXPENSIVE: env.positiveInt(DEFAULT_RATE_LIMITS.ip.expensive),
  TRUSTED_PROXIES: env.trustedProxies(),
};

const gatewayShape = {
  IMPRINT_HOST: z.string().min(1).default("127.0.0.1"),
  IMPRINT_PORT: env.port(8080),
  HTTP_REUSE_PORT: env.boolean(false),
  IMPRINT_PUBLIC_URL: baseUrl(),
  IMPRINT_APP_URL: baseUrl(),
  IMPRINT_READER_URL: baseUrl(),
  GATEWAY_APP_URL: baseUrl(),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  AUTH_STALE_IF_ERROR_MS: z.coerce.number().int().min(0).default(300_000),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls):\/\//, "must be a nats:// URL")
    .optional(),
  GATEWAY_CACHE_BYTES: z.coerce.number().int().min(0).default(DEFAULT_GATEWAY_CACHE_BYTES),
  BODY_LIMIT_BYTES: env.positiveInt(1024 * 1024),
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  SHUTDOWN_DRAIN_MS: env.drainMs(),
  IMPRINT_PAGE_TOKEN_SECRET: z.string().min(32).optional(),
  ...rateLimitShape,
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .transform((setting, ctx) => {
      const parsed = parseAllowedOrigins(setting);
      if ("origins" in parsed) return parsed.origins;
      ctx.addIssue({ code: "custom", message: parsed.problem });
      return z.NEVER;
    }),
  METRICS_TOKEN: env.metricsToken(),
  // One required address variable per upstream, e.g. IDENTITY_GRPC_ADDRESS.
  ...Object.fromEntries(UPSTREAM_NAMES.map((name) => [UPSTREAMS[name].addressVariable, env.grpcAddress()])),
};

export interface GatewayConfig {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /**
   * Listen with SO_REUSEPORT (HTTP_REUSE_PORT, Linux): several processes share the port and the
   * kernel spreads new connections between them (`npm start`'s copies; a new copy starts beside the old).
   */
  reusePort: boolean;
  /** Base URL of this API as clients reach it, used in `urls.location`; defaults to http://host:port. */
  publicUrl: string | undefined;
  /** Base URL of the web application, used in `urls.app`; defaults to the public URL. */
  appUrl: string | undefined;
  /** Base URL of the reader (published sites are read under it); defaults to `<app URL>/sites`. */
  readerUrl: string | undefined;
  /**
   * Where the app target listens (GATEWAY_APP_URL, e.g. http://app:8070): requests for the app's
   * paths (`/`, `/o/…`, `/sign-in`, `/assets/…`) that no route answers are forwarded there, so the
   * app shares the API's origin. Unset: those paths are 404.
   */
  appForwardUrl: string | undefined;
  authCacheTtlMs: number;
  /** While identity is unreachable, how long a token it verified keeps working (needs `natsUrl`: revocations must be heard). */
  authStaleIfErrorMs: number;
  /** NATS of the stack: identity's events (token revocations, member changes) for stale-if-error authentication, and answers to requests with an Idempotency-Key shared by every replica; unset: neither (those answers kept in this process only). */
  natsUrl: string | undefined;
  /** One budget, in bytes, for every cache of the process (verified tokens, page trees of every prefix). */
  cacheBytes: number;
  bodyLimitBytes: number;
  upstreamTimeoutMs: number;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Unset: pretty on a terminal, json otherwise. */
  logFormat: LogFormat | undefined;
  shutdownGraceMs: number;
  /** On SIGTERM: how long /readyz answers 503 while every request is still served, before the listener closes. */
  shutdownDrainMs: number;
  /** HMAC secret signing list cursors; unset: a random key per process (cursors then die with it). */
  pageTokenSecret: string | undefined;
  /** Rate limits (RATE_LIMIT_*): off, or the window and the limits in it; shared by every replica through NATS_URL. */
  rateLimits: { enabled: false } | { enabled: true; windowMs: number; limits: RateLimits };
  /** Whose X-Forwarded-For names the client (TRUSTED_PROXIES); none by default. */
  trustedProxies: TrustedProxies;
  /** Browser origins whose pages may call the API (CORS); `*` for any; empty: none. */
  corsAllowedOrigins: string[];
  /** The bearer token GET /metrics asks for (METRICS_TOKEN); unset: none. */
  metricsToken?: string;
  upstreams: UpstreamAddresses;
}

export function loadGatewayConfig(environment: Record<string, string | undefined> = process.env): GatewayConfig {
  const raw = loadConfig(gatewayShape, environment) as z.infer<z.ZodObject<typeof gatewayShape>> & Record<string, unknown>;
  const upstreams = Object.fromEntries(UPSTREAM_NAMES.map((name) => [name, raw[UPSTREAMS[name].addressVariable] as string])) as UpstreamAddresses;
  return {
    host: raw.IMPRINT_HOST,
    port: raw.IMPRINT_PORT,
    reusePort: raw.HTTP_REUSE_PORT,
    publicUrl: raw.IMPRINT_PUBLIC_URL,
    appUrl: raw.IMPRINT_APP_URL,
    readerUrl: raw.IMPRINT_READER_URL,
    appForwardUrl: raw.GATEWAY_APP_URL,
    authCacheTtlMs: raw.AUTH_CACHE_TTL_MS,
    authStaleIfErrorMs: raw.AUTH_STALE_IF_ERROR_MS,
    natsUrl: raw.NATS_URL,
    cacheBytes: raw.GATEWAY_CACHE_BYTES,
    bodyLimitBytes: raw.BODY_LIMIT_BYTES,
    upstreamTimeoutMs: raw.UPSTREAM_TIMEOUT_MS,
    logLevel: raw.LOG_LEVEL,
    logFormat: raw.LOG_FORMAT,
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: raw.SHUTDOWN_DRAIN_MS,
    pageTokenSecret: raw.IMPRINT_PAGE_TOKEN_SECRET,
    rateLimits: raw.RATE_LIMIT_ENABLED
      ? {
          enabled: true,
          windowMs: raw.RATE_LIMIT_WINDOW_MS,
          limits: {
            token: { reads: raw.RATE_LIMIT_TOKEN_READS, writes: raw.RATE_LIMIT_TOKEN_WRITES, expensive: raw.RATE_LIMIT_TOKEN_EXPENSIVE },
            ip: { reads: raw.RATE_LIMIT_IP_READS, writes: raw.RATE_LIMIT_IP_WRITES, expensive: raw.RATE_LIMIT_IP_EXPENSIVE },
          },
        }
      : { enabled: false },
    trustedProxies: raw.TRUSTED_PROXIES,
    corsAllowedOrigins: raw.CORS_ALLOWED_ORIGINS,
    metricsToken: raw.METRICS_TOKEN,
    upstreams,
  };
}
