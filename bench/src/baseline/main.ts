import { createLogger, env, loadConfig, runMain } from "@imprint/runtime";
import { z } from "zod";
import { startFloorServer } from "./floor.js";
import { startBaselineServer } from "./server.js";

// One entry for the bench's two references: BENCH_REFERENCE picks the baseline (Koa + MikroORM,
// what a team would build) or the floor (node:http + pg, the least that answers correctly).
const configShape = {
  BENCH_REFERENCE: z.enum(["baseline", "floor"]).default("baseline"),
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
  const start = config.BENCH_REFERENCE === "floor" ? startFloorServer : startBaselineServer;
  return start({
    databaseUrl: config.DATABASE_URL,
    host: config.BASELINE_HOST,
    port: config.BASELINE_PORT,
    publicUrl: config.IMPRINT_PUBLIC_URL.replace(/\/+$/, ""),
    authCacheTtlMs: config.AUTH_CACHE_TTL_MS,
    logger: createLogger(config.BENCH_REFERENCE, { level: config.LOG_LEVEL }),
  });
}, logger);
