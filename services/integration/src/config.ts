import { z } from "zod";
import { env, loadConfig, serviceConfigShape } from "@imprint/runtime";

/** The shared service settings plus integration's upstreams, its sandbox limits, delivery and secrets. */
export const integrationConfigShape = {
  ...serviceConfigShape,
  /** Identity's gRPC address: callers' roles, organizations, installation tokens. */
  IDENTITY_GRPC_ADDRESS: env.grpcAddress(),
  /** Content's gRPC address: the spaces integrations are installed on. */
  CONTENT_GRPC_ADDRESS: env.grpcAddress(),
  /** Publishing's gRPC address: the sites integrations are installed on. */
  PUBLISHING_GRPC_ADDRESS: env.grpcAddress(),
  /** Base URL of the public API (the gateway): scripts call it back (`environment.apiEndpoint`). */
  IMPRINT_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .transform((url) => url.replace(/\/+$/, ""))
    .default("http://127.0.0.1:8080"),
  /** Where the secrets key is kept when INTEGRATION_SECRETS_KEY is unset. */
  IMPRINT_DATA_DIR: z.string().min(1).default("./data"),
  /** AES-256-GCM key for integrations' secrets at rest: 32 bytes, base64 or base64url; unset: generated once and kept in the data directory. */
  INTEGRATION_SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, "base64").length === 32, "must be 32 bytes in base64")
    .optional(),
  /** Lets scripts and development tunnels reach private, loopback and link-local addresses (tests and local development). */
  IMPRINT_ALLOW_PRIVATE_FETCH: env.boolean(false),
  /** DNS servers the fetch guard asks (comma-separated `address[:port]`); empty: the system resolver. */
  IMPRINT_FETCH_DNS_SERVERS: env.dnsServers(),
  /** Sandbox: memory of one script call in MiB. */
  INTEGRATION_SCRIPT_MEMORY_MB: z.coerce.number().int().min(8).max(1024).default(64),
  /** Sandbox: CPU time of one script call in milliseconds. */
  INTEGRATION_SCRIPT_CPU_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Sandbox: wall time of one script call in milliseconds, awaited fetches included. */
  INTEGRATION_SCRIPT_WALL_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Sandbox: largest response a script may answer, in bytes. */
  INTEGRATION_SCRIPT_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  /** Sandbox: worker threads running scripts (each runs one call at a time). */
  INTEGRATION_SANDBOX_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  /** Deliveries of integration events under way at once (over all installations; each installation's in order). */
  INTEGRATION_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
  /** Attempts of one event before it is recorded as failed. */
  INTEGRATION_DELIVERY_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** First retry delay in milliseconds; each further retry waits twice as long. */
  INTEGRATION_DELIVERY_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(1_000),
  /**
   * How long a render reuses the rows it looked up (integration, installation, space and site
   * installations) while integration's events are heard: each change drops them at once in its
   * process and in the others when its event arrives, so this only bounds an event that comes late.
   */
  INTEGRATION_RENDER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /** Lifetime of installation tokens (scripts' API tokens), in seconds. */
  INTEGRATION_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
  /** Durable consumer of content's revision events (`space_content_updated`). One per deployment; tests give each instance its own. */
  REVISION_EVENTS_CONSUMER: env.consumerName("integration-content-revisions"),
  /** Durable consumer of content's space events (visibility, purge, transfer). */
  SPACE_EVENTS_CONSUMER: env.consumerName("integration-content-spaces"),
  /** Durable consumer of content's `collection.transferred` (the installations of the spaces it moved go). */
  COLLECTION_EVENTS_CONSUMER: env.consumerName("integration-content-collections"),
  /** Durable consumer of publishing's site events. */
  SITE_EVENTS_CONSUMER: env.consumerName("integration-publishing-sites"),
  /** How long a caller's organization role (and a space it can read, for renders) is reused without asking again. */
  MEMBERSHIP_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /** Durable consumer of identity's member events (drops cached roles). */
  MEMBERSHIP_EVENTS_CONSUMER: env.consumerName("integration-identity-members"),
};

export type IntegrationConfig = z.infer<z.ZodObject<typeof integrationConfigShape>>;

export function loadIntegrationConfig(environment: Record<string, string | undefined> = process.env): IntegrationConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(integrationConfigShape, present);
}
