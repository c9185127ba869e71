import { createLogger, env, loadConfig, runMain } from "@imprint/runtime";
import { z } from "zod";
import { startBaselineServer } from "./server.js";

const configShape = {
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL"),
  BASELINE_HOST: z.string().min(1).default("127.0.0.1"),
  BASELINE_PORT: env.port(8090),
  IMPRINT_PUBLIC_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  LOG_LEVEL: env.logLevel(),
};

const logger = createLogger("baseline");
runMain(async () => {
  const config = loadConfig(configShape, process.env);
  return startBaselineServer({
    databaseUrl: config.DATABASE_URL,
    host: config.BASELINE_HOST,
    port: config.BASELINE_PORT,
    publicUrl: config.IMPRINT_PUBLIC_URL.replace(/\/+$/, ""),
    authCacheTtlMs: config.AUTH_CACHE_TTL_MS,
    logger: createLogger("baseline", { level: config.LOG_LEVEL }),
  });
}, logger);
