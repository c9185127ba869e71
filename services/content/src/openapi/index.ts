import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import type { ServiceRegistration } from "@imprint/runtime";
import { safeFetchPolicy } from "../import/safe-fetch.js";
import type { ContentDeps } from "../service.js";
import { OPENAPI_SPEC_SERVICE_NAME, openApiSpecServiceImplementation } from "./grpc/openapi-service.js";
import { DEFAULT_OPENAPI_PROCESSING_LIMITS, OpenApiProcessor, type OpenApiProcessingLimits } from "./processing/processor.js";

/**
 * OpenAPI specifications: registered by slug from a source URL, fetched (through the import's
 * fetch guard), parsed and validated in the background by {@link OpenApiProcessor}, each
 * processed document kept as a version.
 */

export { openApiEntities } from "./entities.js";
export { OPENAPI_SPEC_SERVICE_NAME };
export { OpenApiProcessor, DEFAULT_OPENAPI_PROCESSING_LIMITS, type OpenApiProcessingLimits };

// One processor per running service: the gRPC handlers wake the same one that start-up starts.
const processors = new WeakMap<ContentDeps, OpenApiProcessor>();

/** The service's OpenAPI processor (created on first use, started by the service bootstrap). */
export function openApiProcessorFor(deps: ContentDeps, limits: OpenApiProcessingLimits = DEFAULT_OPENAPI_PROCESSING_LIMITS): OpenApiProcessor {
  let processor = processors.get(deps);
  if (!processor) {
    processor = new OpenApiProcessor({
      orm: deps.orm,
      clock: deps.clock,
      logger: deps.logger.child({ component: "openapi-processor" }),
      unitOfWork: deps.unitOfWork,
      fetchPolicy: safeFetchPolicy(
        { allowPrivateAddresses: deps.config.IMPRINT_ALLOW_PRIVATE_FETCH },
        { userAgent: "Imprint-OpenAPI/1.0 (+https://github.com/imprint)", maxBodyBytes: limits.maxBytes },
      ),
      limits,
    });
    processors.set(deps, processor);
  }
  return processor;
}

/** The gRPC service of OpenAPI specifications (OpenAPISpecService). */
export function openApiGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  const openApiDeps = { ...deps, openApiJobs: openApiProcessorFor(deps) };
  return [{ name: OPENAPI_SPEC_SERVICE_NAME, definition: OpenAPISpecServiceService, implementation: openApiSpecServiceImplementation(openApiDeps) }];
}
