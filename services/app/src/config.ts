import { env, loadConfig } from "@imprint/runtime/core";
import { z } from "zod";

/**
 * The app's settings: where it listens and how it stops. The browser calls the API itself; the
 * app's server calls it only to check the session of a render request (APP_API_URL).
 */
export const appConfigShape = {
  APP_HOST: z.string().min(1).default("127.0.0.1"),
  /** 0 picks a free port (tests). */
  APP_PORT: env.port(8070),
  /** Listen with SO_REUSEPORT (Linux): copies of the app share APP_PORT, as the reader's do. */
  HTTP_REUSE_PORT: env.boolean(false),
  /** The API (the gateway) the server asks `GET /v1/auth/session` to check who asks `POST /_app/render`. */
  APP_API_URL: z.string().url().default("http://127.0.0.1:8080"),
  /** The largest JSON document `POST /_app/render` reads (larger: 413). */
  APP_RENDER_BODY_LIMIT_BYTES: env.positiveInt(2 * 1024 * 1024),
  /** How long a session the API confirmed is trusted for renders, without asking again. */
  APP_SESSION_CACHE_MS: env.positiveInt(30_000),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  /** On SIGTERM: how long /readyz answers 503 while every request is still served, before the listener closes. */
  SHUTDOWN_DRAIN_MS: env.drainMs(),
  /** When set, GET /metrics answers 401 without `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: env.metricsToken(),
};

export type AppConfig = z.infer<z.ZodObject<typeof appConfigShape>>;

export function loadAppConfig(environment: Record<string, string | undefined> = process.env): AppConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(appConfigShape, present);
}
