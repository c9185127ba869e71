import { env, loadConfig } from "@imprint/runtime/core";
import { z } from "zod";

const baseUrl = () =>
  z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional();

/** Requests per client IP per window by default: a page and its assets are a few, a crawler a few a second. */
export const DEFAULT_READER_RATE_LIMIT_PER_IP = 1200;

// One block, kept apart from the other settings so that it reads (and merges) as a unit. The first
// two and TRUSTED_PROXIES are named as the gateway's: one process hosting both reads them once.
const readerRateLimitShape = {
  /** Off: no request is limited. */
  RATE_LIMIT_ENABLED: env.boolean(true),
  /** The window the limit counts in, aligned on the epoch (replicas share it through NATS_URL). */
  RATE_LIMIT_WINDOW_MS: env.rateLimitWindowMs(),
  /** Requests per client IP per window, beyond which the reader answers 429 with Retry-After. */
  READER_RATE_LIMIT_PER_IP: env.positiveInt(DEFAULT_READER_RATE_LIMIT_PER_IP),
  /** Addresses and CIDR ranges of proxies whose X-Forwarded-For names the client (none by default). */
  TRUSTED_PROXIES: env.trustedProxies(),
};

/** The reader's settings: where it listens, its public URL, the services it reads (and reports page views to). */
export const readerConfigShape = {
  READER_HOST: z.string().min(1).default("127.0.0.1"),
  /** 0 picks a free port (tests). */
  READER_PORT: env.port(8090),
  /**
   * Listen with SO_REUSEPORT (Linux): several processes share READER_PORT and the kernel spreads new
   * connections between them (`npm start`'s copies; a new copy starts beside the old).
   */
  HTTP_REUSE_PORT: env.boolean(false),
  /** The reader's base URL as visitors reach it (published URLs are built on it); defaults to http://host:port. */
  IMPRINT_READER_URL: baseUrl(),
  /**
   * Whether X-Forwarded-Proto and X-Forwarded-Host are believed (the reader behind an ingress or proxy
   * that sets them): custom hostnames' links and cookies then follow the visitor's scheme.
   */
  TRUST_PROXY: env.boolean(false),
  PUBLISHING_GRPC_ADDRESS: env.grpcAddress(),
  CONTENT_GRPC_ADDRESS: env.grpcAddress(),
  /**
   * The integration service: page views are reported to it (integrations' `site_view` events) and
   * sites' pages load their integrations' scripts. Unset: neither.
   */
  INTEGRATION_GRPC_ADDRESS: env.grpcAddress().optional(),
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * NATS, where publishing's and content's events tell the reader what changed: with it, sites and
   * spaces are kept until an event (or EVENT_CACHE_TTL_MS) says otherwise; without it, they are
   * asked again after SITE_CACHE_TTL_MS.
   */
  NATS_URL: z.string().min(1).optional(),
  /** Without NATS: how long a site, a space's revision or a share key is reused before asking again. */
  SITE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  /** With NATS: the longest anything is reused without an event (a safety net for a missed one). */
  EVENT_CACHE_TTL_MS: env.positiveInt(60_000),
  /**
   * One budget, in bytes, for rendered pages (kept per revision, page and visitor), page bodies and
   * small files. 48 MiB keeps the reader within 256 MB under the bench's hundred 5,000-word pages
   * (docs/benchmarks.md § Memory); 64 MiB took it to 258 MB.
   */
  PAGE_CACHE_BYTES: env.positiveInt(48 * 1024 * 1024),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  /** On SIGTERM: how long /readyz answers 503 while every request is still served, before the listener closes. */
  SHUTDOWN_DRAIN_MS: env.drainMs(),
  ...readerRateLimitShape,
  /** When set, GET /metrics answers 401 without `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: env.metricsToken(),
};

export type ReaderConfig = z.infer<z.ZodObject<typeof readerConfigShape>>;

export function loadReaderConfig(environment: Record<string, string | undefined> = process.env): ReaderConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(readerConfigShape, present);
}
