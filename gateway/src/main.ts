import { createLogger, runMain } from "@imprint/runtime/core";
import { loadGatewayConfig, startGateway } from "./index.js";

// Config is read inside start so a broken environment is reported as a list of problems by runMain.
const logger = createLogger("gateway");
runMain(() => startGateway(loadGatewayConfig(process.env), { logger }), logger);
