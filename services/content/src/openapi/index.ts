import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import { safeFetchPolicy, type JobSpec, type SafeFetchPolicy, type ServiceRegistration } from "@imprint/runtime";
import { OPENAPI_SPEC_SERVICE_NAME, openApiSpecServiceImplementation } from "./grpc/openapi-service.js";
import { DEFAULT_OPENAPI_PROCESSING_LIMITS, type OpenApiProcessingLimits } from "./domain/limits.js";
import { OPENAPI_PROCESSING_JOB, openApiProcessingJob } from "./jobs/processor.js";
import type { ContentDeps } from "../deps.js";

/**
 * OpenAPI specifications: registered by slug from a source URL, fetched (through the import's
 * fetch guard), parsed and validated in the background by the {@link openApiProcessingJob}, each
 * processed document kept as a version.
 */

export { openApiEntities } from "./domain/entities.js";
export { findLatestOpenApiDocument, type LatestOpenApiDocument } from "./store/latest-document.js";
export { fetchExternalOpenApiDocument, parseOpenApiFile } from "./use-cases/fetch-external-document.js";
export { OPENAPI_SPEC_SERVICE_NAME };
export { OPENAPI_PROCESSING_JOB, DEFAULT_OPENAPI_PROCESSING_LIMITS, type OpenApiProcessingLimits };

/** The fetch guard's policy for sources: the one the job fetches with and the use cases check a submitted URL against. */
function openApiFetchPolicy(deps: ContentDeps, limits: OpenApiProcessingLimits): SafeFetchPolicy {
  return safeFetchPolicy(
    { allowPrivateAddresses: deps.config.IMPRINT_ALLOW_PRIVATE_FETCH, service: "content", dnsServers: deps.config.IMPRINT_FETCH_DNS_SERVERS },
    { userAgent: "Imprint-OpenAPI/1.0 (+https://github.com/imprint)", maxBodyBytes: limits.maxBytes },
  );
}

/** The background job processing submitted sources (the content service runs it through the runtime's job runner). */
export function openApiJob(deps: ContentDeps, limits: OpenApiProcessingLimits = DEFAULT_OPENAPI_PROCESSING_LIMITS): JobSpec {
  return openApiProcessingJob({
    orm: deps.orm,
    clock: deps.clock,
    logger: deps.logger.child({ component: "openapi-processor" }),
    unitOfWork: deps.unitOfWork,
    fetchPolicy: openApiFetchPolicy(deps, limits),
    limits,
  });
}

/** The gRPC service of OpenAPI specifications (OpenAPISpecService). */
export function openApiGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  const openApiDeps = { ...deps, fetchPolicy: openApiFetchPolicy(deps, DEFAULT_OPENAPI_PROCESSING_LIMITS) };
  return [{ name: OPENAPI_SPEC_SERVICE_NAME, definition: OpenAPISpecServiceService, implementation: openApiSpecServiceImplementation(openApiDeps) }];
}
