import { createLogger, runMain } from "@imprint/runtime";
import { loadCollaborationConfig } from "./config.js";
import { startCollaborationService } from "./service.js";

const logger = createLogger("collaboration");
runMain(() => startCollaborationService(loadCollaborationConfig(process.env), { logger }), logger);
