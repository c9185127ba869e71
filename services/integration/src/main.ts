import { createLogger, runServiceMain } from "@imprint/runtime";
import { loadIntegrationConfig } from "./config.js";
import { INTEGRATION_MIGRATIONS_PATH, startIntegrationService } from "./service.js";

const logger = createLogger("integration");
// `main.js` serves; `main.js migrate` applies pending migrations and exits.
runServiceMain({
  name: "integration",
  migrationsPath: INTEGRATION_MIGRATIONS_PATH,
  start: () => startIntegrationService(loadIntegrationConfig(process.env), { logger }),
  logger,
});
