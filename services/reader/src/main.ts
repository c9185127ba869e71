import { createLogger, runMain } from "@imprint/runtime/core";
import { loadReaderConfig } from "./config.js";
import { startReader } from "./server.js";

// The reader alone in its process. Config is read inside start so a broken environment is reported
// as a list of problems by runMain.
const logger = createLogger("reader");
runMain(() => startReader(loadReaderConfig(process.env), { logger }), logger);
