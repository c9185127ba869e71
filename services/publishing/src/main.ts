import { createLogger, runServiceMain } from "@imprint/runtime";
import { loadPublishingConfig } from "./config.js";
import { PUBLISHING_MIGRATIONS_PATH, startPublishingService } from "./service.js";

const logger = createLogger("publishing");
// `main.js` serves; `main.js migrate` applies pending migrations and exits.
runServiceMain({
  name: "publishing",
  migrationsPath: PUBLISHING_MIGRATIONS_PATH,
  start: () => startPublishingService(loadPublishingConfig(process.env), { logger }),
  logger,
});
