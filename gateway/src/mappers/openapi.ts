import { OpenAPISpecProcessErrorCode, OpenAPISpecProcessingState, type OpenAPISpec, type OpenAPISpecVersion } from "@imprint/proto/content/v1/openapi";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";

/** GitBook's OpenAPISpec object. */
export interface RestOpenApiSpec {
  object: "openapi-spec";
  id: string;
  createdAt: string;
  updatedAt: string;
  slug: string;
  sourceURL: string;
  processingState: "pending" | "progress" | "complete";
  visibility?: "private" | "public";
  lastVersion?: string;
  lastProcessedAt?: string;
  lastProcessErrorCode?: "FETCH_TIMEOUT" | "FETCH_ERROR" | "PARSE_ERROR";
  lastProcessedErrors?: { code: string; message: string }[];
  lastProcessedErrorCount: number;
  permissions: { view: boolean; edit: boolean };
  urls: { location: string; app: string };
}

const STATES: Partial<Record<OpenAPISpecProcessingState, RestOpenApiSpec["processingState"]>> = {
  [OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PENDING]: "pending",
  [OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PROGRESS]: "progress",
  [OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_COMPLETE]: "complete",
};

const ERROR_CODES: Partial<Record<OpenAPISpecProcessErrorCode, NonNullable<RestOpenApiSpec["lastProcessErrorCode"]>>> = {
  [OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_TIMEOUT]: "FETCH_TIMEOUT",
  [OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_ERROR]: "FETCH_ERROR",
  [OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_PARSE_ERROR]: "PARSE_ERROR",
};

/** API URL of a specification (also its `Location` when created). */
export function openApiSpecLocation(urls: PublicUrls, organizationId: string, slug: string): string {
  return `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/openapi/${encodeURIComponent(slug)}`;
}

/**
 * GitBook's OpenAPISpec: a failed processing is `complete` with `lastProcessErrorCode` and the
 * problems in `lastProcessedErrors`; fields without a value (no version yet) are left out.
 */
export function toRestOpenApiSpec(spec: OpenAPISpec | undefined, urls: PublicUrls): RestOpenApiSpec {
  if (!spec) throw new AppError("internal", "upstream answered without an OpenAPI specification");
  const processingState = STATES[spec.processingState];
  if (!processingState) throw new AppError("internal", `upstream answered an unknown processing state ${spec.processingState}`);
  const rest: RestOpenApiSpec = {
    object: "openapi-spec",
    id: spec.id,
    createdAt: (spec.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (spec.updatedAt ?? new Date(0)).toISOString(),
    slug: spec.slug,
    sourceURL: spec.sourceUrl,
    processingState,
    lastProcessedErrorCount: spec.lastProcessedErrorCount,
    permissions: { view: spec.permissions?.view ?? false, edit: spec.permissions?.edit ?? false },
    urls: {
      location: openApiSpecLocation(urls, spec.organizationId, spec.slug),
      app: `${urls.app}/o/${encodeURIComponent(spec.organizationId)}/openapi/${encodeURIComponent(spec.slug)}`,
    },
  };
  if (spec.visibility === "private" || spec.visibility === "public") rest.visibility = spec.visibility;
  if (spec.lastVersion) rest.lastVersion = spec.lastVersion.id;
  if (spec.lastProcessedAt) rest.lastProcessedAt = spec.lastProcessedAt.toISOString();
  const errorCode = ERROR_CODES[spec.lastProcessErrorCode];
  if (errorCode) rest.lastProcessErrorCode = errorCode;
  if (spec.lastProcessedErrors.length > 0) rest.lastProcessedErrors = spec.lastProcessedErrors.map(({ code, message }) => ({ code, message }));
  return rest;
}

/** GitBook's OpenAPISpecVersion: `url` is the source it was fetched from. */
export function toRestOpenApiSpecVersion(
  version: OpenAPISpecVersion | undefined,
  urls: PublicUrls,
  organizationId: string,
  slug: string,
): Record<string, unknown> {
  if (!version) throw new AppError("internal", "upstream answered without an OpenAPI specification version");
  return {
    object: "openapi-spec-version",
    id: version.id,
    createdAt: (version.createdAt ?? new Date(0)).toISOString(),
    url: version.sourceUrl,
    urls: { location: `${openApiSpecLocation(urls, organizationId, slug)}/versions/${encodeURIComponent(version.id)}` },
  };
}

/**
 * GitBook's OpenAPISpecContent: the version's parsed document (before dereferencing) in
 * `filesystem`, under the URL it was fetched from (Imprint keeps one file per version); `public`
 * is that URL when the specification is public, null when it is private.
 */
export function toRestOpenApiSpecContent(
  version: OpenAPISpecVersion | undefined,
  spec: OpenAPISpec | undefined,
  documentJson: string,
): Record<string, unknown> {
  if (!version || !spec) throw new AppError("internal", "upstream answered without an OpenAPI specification version");
  return {
    filesystem: { [version.sourceUrl]: JSON.parse(documentJson) as unknown },
    urls: { source: version.sourceUrl, public: spec.visibility === "public" ? version.sourceUrl : null },
  };
}
