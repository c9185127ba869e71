import { createLogger, runServiceMain } from "@imprint/runtime";
import { loadIdentityConfig } from "./config.js";
import { IDENTITY_MIGRATIONS_PATH, startIdentityService } from "./service.js";

const logger = createLogger("identity");
// `main.js` serves; `main.js migrate` applies pending migrations and exits.
runServiceMain({
  name: "identity",
  migrationsPath: IDENTITY_MIGRATIONS_PATH,
  start: () => startIdentityService(loadIdentityConfig(process.env), { logger }),
  logger,
});
