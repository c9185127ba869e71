import type { ContentDeps } from "../service.js";

/**
 * What the OpenAPI use cases need: the content service's deps, whose `jobs.wake` starts the
 * processing job (OPENAPI_PROCESSING_JOB) at once when a source was queued.
 */
export type OpenApiDeps = ContentDeps;
