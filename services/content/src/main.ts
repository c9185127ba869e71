import { createLogger, runServiceMain } from "@imprint/runtime";
import { loadContentConfig } from "./config.js";
import { CONTENT_MIGRATIONS_PATH, startContentService } from "./service.js";

const logger = createLogger("content");
// `main.js` serves; `main.js migrate` applies pending migrations and exits.
runServiceMain({
  name: "content",
  migrationsPath: CONTENT_MIGRATIONS_PATH,
  start: () => startContentService(loadContentConfig(process.env), { logger }),
  logger,
});
