import { createLogger, runMain } from "@imprint/runtime";
import { loadIdentityConfig } from "./config.js";
import { startIdentityService } from "./service.js";

const logger = createLogger("identity");
runMain(() => startIdentityService(loadIdentityConfig(process.env), { logger }), logger);
