export { integrationConfigShape, loadIntegrationConfig, type IntegrationConfig } from "./config.js";
export { integrationServiceSpec, startIntegrationService, INTEGRATION_MIGRATIONS_PATH } from "./service.js";
export type { IntegrationDeps } from "./deps.js";
export { INTEGRATION_SERVICE_NAME } from "./grpc/integration-service.js";
export { INTEGRATION_EVENT_CONTEXT } from "./events.js";
