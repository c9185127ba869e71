import { createLogger, runMain } from "@imprint/runtime/core";
import { loadAppConfig } from "./config.js";
import { startApp } from "./server.js";

// The app alone in its process. Config is read inside start so a broken environment is reported
// as a list of problems by runMain.
const logger = createLogger("app");
runMain(() => startApp(loadAppConfig(process.env), { logger }), logger);
