export { loadPublishingConfig, publishingConfigShape, type PublishingConfig } from "./config.js";
export { publishingServiceSpec, startPublishingService, PUBLISHING_MIGRATIONS_PATH } from "./service.js";
export type { PublishingDeps } from "./deps.js";
export { SITE_SERVICE_NAME } from "./grpc/site-service.js";
export { PUBLISHING_EVENT_CONTEXT } from "./events.js";
export { publishingEntities } from "./domain/entities.js";
