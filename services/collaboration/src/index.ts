export { loadCollaborationConfig, collaborationConfigShape, type CollaborationConfig } from "./config.js";
export { collaborationServiceSpec, startCollaborationService, COLLABORATION_MIGRATIONS_PATH } from "./service.js";
export type { CollaborationDeps } from "./deps.js";
export { CHANGE_REQUEST_SERVICE_NAME } from "./grpc/change-request-service.js";
export { COMMENT_SERVICE_NAME } from "./grpc/comment-service.js";
export { REVIEW_SERVICE_NAME } from "./grpc/review-service.js";
export { COLLABORATION_EVENT_CONTEXT } from "./events.js";
export { collaborationEntities } from "./domain/entities.js";
