import { createLogger, runServiceMain } from "@imprint/runtime";
import { loadCollaborationConfig } from "./config.js";
import { COLLABORATION_MIGRATIONS_PATH, startCollaborationService } from "./service.js";

const logger = createLogger("collaboration");
// `main.js` serves; `main.js migrate` applies pending migrations and exits.
runServiceMain({
  name: "collaboration",
  migrationsPath: COLLABORATION_MIGRATIONS_PATH,
  start: () => startCollaborationService(loadCollaborationConfig(process.env), { logger }),
  logger,
});
