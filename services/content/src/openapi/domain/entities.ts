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
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    slug: p.string().length(OPENAPI_SLUG_MAX),
    sourceUrl: p.string().length(OPENAPI_SOURCE_URL_MAX),
    processingState: p.enum(OPENAPI_PROCESSING_STATES).default("pending"),
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
export class OpenApiSpec extends OpenApiSpecSchema.class {}
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
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
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
