import { createLogger, runMain } from "@imprint/runtime";
import { loadContentConfig } from "./config.js";
import { startContentService } from "./service.js";

const logger = createLogger("content");
runMain(() => startContentService(loadContentConfig(process.env), { logger }), logger);
