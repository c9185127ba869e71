import {
  OpenAPISpecProcessErrorCode,
  OpenAPISpecProcessingState,
  type OpenAPISpec as OpenAPISpecMessage,
  type OpenAPISpecVersion as OpenAPISpecVersionMessage,
} from "@imprint/proto/content/v1/openapi";
import type { OpenApiProcessErrorCode, OpenApiProcessingState } from "../domain/entities.js";
import type { OpenApiSpecView, OpenApiVersionSummary } from "../store/views.js";

const STATE_TO_PROTO: Record<OpenApiProcessingState, OpenAPISpecProcessingState> = {
  pending: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PENDING,
  progress: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PROGRESS,
  complete: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_COMPLETE,
};

const ERROR_CODE_TO_PROTO: Record<OpenApiProcessErrorCode, OpenAPISpecProcessErrorCode> = {
  FETCH_TIMEOUT: OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_TIMEOUT,
  FETCH_ERROR: OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_ERROR,
  PARSE_ERROR: OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_PARSE_ERROR,
};

export function versionToProto(version: OpenApiVersionSummary): OpenAPISpecVersionMessage {
  return {
    id: version.id,
    sourceUrl: version.sourceUrl,
    contentHash: version.contentHash,
    title: version.title,
    apiVersion: version.apiVersion,
    specification: version.specification,
    format: version.format,
    sizeBytes: String(version.sizeBytes),
    createdAt: version.createdAt,
  };
}

export function openApiSpecToProto({ spec, lastVersion, permissions }: OpenApiSpecView): OpenAPISpecMessage {
  return {
    id: spec.id,
    organizationId: spec.organizationId,
    slug: spec.slug,
    sourceUrl: spec.sourceUrl,
    processingState: STATE_TO_PROTO[spec.processingState as OpenApiProcessingState],
    lastVersion: lastVersion ? versionToProto(lastVersion) : undefined,
    lastProcessedAt: spec.lastProcessedAt ?? undefined,
    lastProcessErrorCode: spec.lastProcessErrorCode
      ? ERROR_CODE_TO_PROTO[spec.lastProcessErrorCode]
      : OpenAPISpecProcessErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_UNSPECIFIED,
    lastProcessedErrors: spec.lastProcessErrors,
    lastProcessedErrorCount: spec.lastProcessErrorCount,
    createdAt: spec.createdAt,
    updatedAt: spec.updatedAt,
    permissions,
    visibility: spec.visibility,
  };
}
