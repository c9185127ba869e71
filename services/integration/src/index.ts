export { integrationConfigShape, loadIntegrationConfig, type IntegrationConfig } from "./config.js";
export { integrationServiceSpec, startIntegrationService, INTEGRATION_MIGRATIONS_PATH } from "./service.js";
export type { IntegrationDeps } from "./deps.js";
export { INSTALLATION_SERVICE_NAME } from "./grpc/installation-service.js";
export { INTEGRATION_EVENT_SERVICE_NAME } from "./grpc/integration-event-service.js";
export { INTEGRATION_SERVICE_NAME } from "./grpc/integration-service.js";
export { SCRIPT_SERVICE_NAME } from "./grpc/script-service.js";
export { TARGET_INSTALLATION_SERVICE_NAME } from "./grpc/target-installation-service.js";
export { INTEGRATION_EVENT_CONTEXT } from "./events.js";
