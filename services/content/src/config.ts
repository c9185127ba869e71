import { z } from "zod";
import { ConfigError, env, loadConfig, serviceConfigShape } from "@imprint/runtime";
import { DEFAULT_GIT_LIMITS } from "./git/domain/limits.js";
import { DEFAULT_CONTENT_CACHE_BYTES } from "./revisions/domain/tree/caches.js";

/** The shared service settings plus what the content context needs: identity, file storage, fetch policy, purge. */
export const contentConfigShape = {
  ...serviceConfigShape,
  /** Identity's gRPC address: the caller's organization role comes from GetMembership. */
  IDENTITY_GRPC_ADDRESS: env.grpcAddress(),
  /** Imprint's data directory; files live under <data>/content-blobs unless CONTENT_BLOB_DIR says otherwise. */
  IMPRINT_DATA_DIR: z.string().min(1).default("./data"),
  /** Where file bytes are stored (content-addressed) when FILE_STORE=directory. */
  CONTENT_BLOB_DIR: z.string().min(1).optional(),
  /**
   * Where file bytes live: `directory` (CONTENT_BLOB_DIR; several replicas then need one shared,
   * ReadWriteMany volume) or `s3` (an S3-compatible bucket every replica reaches).
   */
  FILE_STORE: z.enum(["directory", "s3"], { error: "must be directory or s3" }).default("directory"),
  /** FILE_STORE=s3: the bucket (created beforehand: Imprint does not create it). */
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name (3 to 63 lowercase letters, digits, . or -)")
    .optional(),
  /** FILE_STORE=s3: the endpoint of an S3-compatible store (MinIO, Ceph, R2, …); unset: AWS S3. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  /** FILE_STORE=s3: the bucket's region. */
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, "must be a region name such as us-east-1")
    .default("us-east-1"),
  /** FILE_STORE=s3: access key; unset together with S3_SECRET_ACCESS_KEY: the AWS SDK's default chain (environment, web identity, instance role). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** FILE_STORE=s3: the access key's secret. */
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** FILE_STORE=s3: path-style URLs (endpoint/bucket/key); unset: true when S3_ENDPOINT is set, as most S3-compatible stores need. */
  S3_FORCE_PATH_STYLE: z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .transform((v) => v === "true" || v === "1" || v === "yes")
    .optional(),
  /** FILE_STORE=s3: prefix of every object key, e.g. `imprint/` to share a bucket. */
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]{0,512}$/, "must be letters, digits and !_.*'()/- only")
    .refine(
      (prefix) => !prefix.startsWith("/") && !prefix.split("/").some((segment) => segment === "." || segment === ".."),
      "must not start with / nor hold . or .. segments",
    )
    .default(""),
  /** Key that signs file and export download URLs; when unset one is generated once and kept in the data directory. */
  IMPRINT_FILE_URL_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Base URL of the public API (the gateway), used to build signed file and export URLs. */
  IMPRINT_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .transform((url) => url.replace(/\/+$/, ""))
    .default("http://127.0.0.1:8080"),
  /** Lets imports fetch private, loopback and link-local addresses (tests serve sites from loopback). */
  IMPRINT_ALLOW_PRIVATE_FETCH: env.boolean(false),
  /** DNS servers the fetch guard asks (comma-separated `address[:port]`); empty: the system resolver. */
  IMPRINT_FETCH_DNS_SERVERS: env.dnsServers(),
  /** Import runs one replica executes at once (the import-runs job). */
  IMPORT_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Take-overs of an import run whose worker vanished (crashed) before the run is failed instead. */
  IMPORT_RUN_MAX_INTERRUPTIONS: z.coerce.number().int().min(0).max(10).default(2),
  /** Git import and export (docs/git.md): the git executable (Debian's /usr/bin/git in the image). */
  GIT_BINARY: z.string().min(1).default("git"),
  /** Git: bytes of the fetched repository (objects at the ref, depth 1). */
  GIT_MAX_REPOSITORY_BYTES: env.positiveInt(DEFAULT_GIT_LIMITS.maxRepositoryBytes),
  /** Git: files in the tree at the ref. */
  GIT_MAX_FILES: env.positiveInt(DEFAULT_GIT_LIMITS.maxFiles),
  /** Git: bytes of one file (asset) read from or written to the repository. */
  GIT_MAX_FILE_BYTES: env.positiveInt(DEFAULT_GIT_LIMITS.maxFileBytes),
  /** Git: pages imported or exported. */
  GIT_MAX_PAGES: env.positiveInt(DEFAULT_GIT_LIMITS.maxPages),
  /** Git: bytes of one page's markdown file. */
  GIT_MAX_MARKDOWN_BYTES: env.positiveInt(DEFAULT_GIT_LIMITS.maxMarkdownBytes),
  /** Git: time limit of the git commands of one import or export, in milliseconds. */
  GIT_MAX_DURATION_MS: env.positiveInt(DEFAULT_GIT_LIMITS.maxDurationMs),
  /** Git Sync: first retry delay of a queued import that failed, in milliseconds (each further retry waits twice as long); also how often the Git sync job looks for retries due. */
  GIT_SYNC_RETRY_MS: env.positiveInt(5_000),
  /** Git Sync: attempts at a queued import before it is given up (the failure stays as the last sync's). */
  GIT_SYNC_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** Git Sync: how often connected repositories are asked for their ref's commit (`git ls-remote`), for hosts without webhooks; 0: never. */
  GIT_SYNC_POLL_INTERVAL_MS: z.coerce.number().int().min(0).default(0),
  /** AES-256-GCM key sealing Git sync credentials and webhook secrets at rest: 32 bytes, base64; unset: generated once and kept in the data directory. */
  GIT_SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, "base64").length === 32, "must be 32 bytes in base64")
    .optional(),
  /** How often spaces deleted more than 7 days ago are purged and expired exports deleted. */
  PURGE_INTERVAL_MS: env.positiveInt(60 * 60 * 1000),
  /** How often content's copy of team memberships is made equal to identity's (the team-memberships reconciliation job). */
  TEAM_RECONCILE_INTERVAL_MS: env.positiveInt(60 * 60 * 1000),
  /**
   * How long a caller's organization role is reused without asking identity again. Identity's member
   * events drop an entry at once; the TTL bounds staleness when an event reaches another replica.
   */
  MEMBERSHIP_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * One memory budget, in bytes, for every cache of the process's content trees together (tree
   * nodes, page and file versions, bodies, page indexes, revision rows; the reads' and indexing's):
   * least recently used dropped first. Everything in them is immutable, so a smaller budget costs
   * only reads of PostgreSQL. At least 1 MiB.
   */
  CONTENT_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(DEFAULT_CONTENT_CACHE_BYTES),
  /** Durable consumer of identity's member events (one per deployment; tests give each instance its own). */
  MEMBERSHIP_EVENTS_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
    .default("content-identity-members"),
  /**
   * Durable consumer of the collaboration service's events that keeps the spaces' change-request
   * and comment counters (one per deployment; tests give each instance its own).
   */
  COUNTERS_EVENTS_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
    .default("content-collaboration-counters"),
  /** Durable consumer of identity's team events that keeps who is in which team (one per deployment; tests give each instance its own). */
  TEAMS_EVENTS_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
    .default("content-identity-teams"),
  /** Durable consumer of publishing's announcements of where spaces are published (one per deployment; tests give each instance its own). */
  PUBLICATIONS_EVENTS_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
    .default("content-publishing-publications"),
  /**
   * Durable consumer that feeds the search index from content events. Unset: one per content
   * database (`content-search-<database>`), which is what every replica of a deployment shares.
   */
  SEARCH_INDEX_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1 to 128 letters, digits, - or _")
    .optional(),
};

export type ContentConfig = z.infer<z.ZodObject<typeof contentConfigShape>>;

/** The configuration once start-up resolved its defaults that need the file system. */
export type ResolvedContentConfig = Omit<ContentConfig, "IMPRINT_FILE_URL_SECRET" | "CONTENT_BLOB_DIR" | "GIT_SECRETS_KEY"> & {
  IMPRINT_FILE_URL_SECRET: string;
  GIT_SECRETS_KEY: string;
  CONTENT_BLOB_DIR: string;
};

export function loadContentConfig(environment: Record<string, string | undefined> = process.env): ContentConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  // Settings that depend on each other are checked too, and every problem is listed at once.
  const problems = fileStoreProblems(present);
  let config: ContentConfig;
  try {
    config = loadConfig(contentConfigShape, present);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError([...error.problems, ...problems]);
    throw error;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function fileStoreProblems(environment: Record<string, string | undefined>): string[] {
  if (environment.FILE_STORE !== "s3") {
    // S3 settings with the directory store are a forgotten FILE_STORE, and files would go to a volume that may not last.
    return environment.S3_BUCKET === undefined ? [] : [`FILE_STORE: must be s3 when S3_BUCKET is set (got "${environment.FILE_STORE ?? "directory"}")`];
  }
  const problems: string[] = [];
  if (environment.S3_BUCKET === undefined) problems.push("S3_BUCKET: required when FILE_STORE=s3 (not set)");
  if ((environment.S3_ACCESS_KEY_ID === undefined) !== (environment.S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither to use the AWS SDK's default credential chain");
  }
  return problems;
}
