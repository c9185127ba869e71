import { defineEntity, p } from "@mikro-orm/postgresql";

/** Slugs name specifications in URLs: lower-case words joined by single hyphens. */
export const OPENAPI_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const OPENAPI_SLUG_MAX = 100;
export const OPENAPI_SOURCE_URL_MAX = 2048;

/**
 * GitBook's processing states: `pending` (waiting for a worker), `progress` (a worker has it),
 * `complete` (a version was kept, or `lastProcessErrorCode` says why not).
 */
export const OPENAPI_PROCESSING_STATES = ["pending", "progress", "complete"] as const;
export type OpenApiProcessingState = (typeof OPENAPI_PROCESSING_STATES)[number];

/** GitBook's visibilities: `private` (members only), `public` (its source URL may be handed to anyone). */
export const OPENAPI_VISIBILITIES = ["private", "public"] as const;
export type OpenApiVisibility = (typeof OPENAPI_VISIBILITIES)[number];

/** GitBook's processing error codes; the details are in `lastProcessErrors`. */
export const OPENAPI_PROCESS_ERROR_CODES = ["FETCH_TIMEOUT", "FETCH_ERROR", "PARSE_ERROR"] as const;
export type OpenApiProcessErrorCode = (typeof OPENAPI_PROCESS_ERROR_CODES)[number];

export interface OpenApiProcessProblem {
  code: string;
  message: string;
}

/**
 * An OpenAPI specification registered by slug. The row is also its processing job: every change
 * of source bumps `sourceGeneration` and sets the state to `pending`; a worker claims it (state
 * `progress`, `claimedGeneration`, a lease), fetches and validates outside any transaction, and
 * records the outcome only if the generation it worked on is still the current one.
 */
export const OpenApiSpecSchema = defineEntity({
  name: "OpenApiSpec",
  tableName: "openapi_specs",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    slug: p.string().length(OPENAPI_SLUG_MAX),
    sourceUrl: p.string().length(OPENAPI_SOURCE_URL_MAX),
    processingState: p.enum(OPENAPI_PROCESSING_STATES).default("pending"),
    visibility: p.enum(OPENAPI_VISIBILITIES).default("private"),
    /** Incremented on every change of source (and every re-submission): what a worker must process. */
    sourceGeneration: p.integer().default(1),
    /** The generation the worker holding the lease is processing. */
    claimedGeneration: p.integer().nullable(),
    /** Until when the worker's claim holds; a claim past it (a crashed worker) is taken over. */
    leaseExpiresAt: p.datetime().nullable(),
    lastVersionId: p.uuid().nullable(),
    lastProcessedAt: p.datetime().nullable(),
    lastProcessErrorCode: p.enum(OPENAPI_PROCESS_ERROR_CODES).nullable(),
    lastProcessErrors: p.json<OpenApiProcessProblem[]>().default("[]"),
    lastProcessErrorCount: p.integer().default(0),
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ properties: ["organizationId", "slug"], name: "openapi_specs_organization_slug_unique" }],
  indexes: [{ properties: ["processingState", "leaseExpiresAt"], name: "openapi_specs_processing_index" }],
});
/** Why a processing kept no version: GitBook's error code and the problems found (`problemCount` in all). */
export interface OpenApiProcessFailure {
  code: OpenApiProcessErrorCode;
  problems: OpenApiProcessProblem[];
  problemCount: number;
}

export class OpenApiSpec extends OpenApiSpecSchema.class {
  /**
   * Points the specification at `sourceUrl` (possibly the same) and queues it again at `now`: a
   * new generation, so a worker still busy with the previous one discards its result. The last
   * version, processing time and errors stay as they are until the new processing finishes.
   * Answers the previous source URL.
   */
  resubmit(sourceUrl: string, now: Date): string {
    const previousSourceUrl = this.sourceUrl;
    this.sourceUrl = sourceUrl;
    this.sourceGeneration += 1;
    this.processingState = "pending";
    this.claimedGeneration = null;
    this.leaseExpiresAt = null;
    this.updatedAt = now;
    return previousSourceUrl;
  }

  /** Whether a worker's result for `generation` still applies (no re-submission since its claim). */
  isCurrentGeneration(generation: number): boolean {
    return this.sourceGeneration === generation;
  }

  /** A processing kept a document at `now`: `newVersionId` when it is a new version (null keeps the last one); the errors are cleared. */
  completeWithVersion(newVersionId: string | null, now: Date): void {
    if (newVersionId !== null) this.lastVersionId = newVersionId;
    this.lastProcessErrorCode = null;
    this.lastProcessErrors = [];
    this.lastProcessErrorCount = 0;
    this.complete(now);
  }

  /** A processing failed at `now`: the last version stays, the failure is recorded. */
  completeWithFailure(failure: OpenApiProcessFailure, now: Date): void {
    this.lastProcessErrorCode = failure.code;
    this.lastProcessErrors = failure.problems;
    this.lastProcessErrorCount = failure.problemCount;
    this.complete(now);
  }

  /** `progress` → `complete`: the claim is released and the processing time recorded. */
  private complete(now: Date): void {
    this.processingState = "complete";
    this.claimedGeneration = null;
    this.leaseExpiresAt = null;
    this.lastProcessedAt = now;
    this.updatedAt = now;
  }
}
OpenApiSpecSchema.setClass(OpenApiSpec);

/**
 * One processed version of a specification: the bytes fetched (kept as text), the parsed
 * document (before dereferencing: dereferenced documents can be cyclic) and what was read from it.
 * Immutable; a processing whose bytes hash like the latest version's keeps that version.
 */
export const OpenApiSpecVersionSchema = defineEntity({
  name: "OpenApiSpecVersion",
  tableName: "openapi_spec_versions",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    specId: p.uuid(),
    sourceUrl: p.string().length(OPENAPI_SOURCE_URL_MAX),
    /** SHA-256 of the fetched bytes, hex. */
    contentHash: p.string().length(64),
    title: p.text(),
    apiVersion: p.text(),
    /** e.g. `openapi 3.1.0`, `swagger 2.0`. */
    specification: p.string().length(64),
    format: p.string().length(8),
    sizeBytes: p.integer(),
    rawText: p.text(),
    document: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["specId", "createdAt"], name: "openapi_spec_versions_spec_created_at_index" }],
});
export class OpenApiSpecVersion extends OpenApiSpecVersionSchema.class {}
OpenApiSpecVersionSchema.setClass(OpenApiSpecVersion);

export const openApiEntities = [OpenApiSpec, OpenApiSpecVersion];
