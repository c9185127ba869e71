import type { Logger } from "@imprint/runtime/core";
import { Router } from "@koa/router";
import Koa from "koa";
import type { TokenAuthenticator } from "./auth.js";
import { CacheBudget } from "@imprint/runtime/core";
import { DEFAULT_GATEWAY_CACHE_BYTES } from "./config.js";
import { indexRouteMatching } from "./indexed-router.js";
import { MemoryIdempotencyStore, type IdempotencyStore } from "./idempotency-store.js";
import type { GatewayState } from "./context.js";
import type { PublicUrls } from "./mappers/urls.js";
import type { GatewayReadiness } from "./readiness.js";
import { accessLog } from "./middleware/access-log.js";
import { writeChunkedBodies } from "./middleware/chunked-body.js";
import { cors, type CorsPolicy } from "./middleware/cors.js";
import { requestMetrics } from "./middleware/metrics.js";
import { errorHandler } from "./middleware/error-handler.js";
import { rateLimit, type RateLimitOptions } from "./middleware/rate-limit.js";
import { idempotency, type IdempotencyLease } from "./middleware/idempotency.js";
import { routeFallback } from "./middleware/fallback.js";
import { forwardToApp } from "./middleware/app-forward.js";
import { requestId } from "./middleware/request-id.js";
import { securityHeaders } from "./middleware/security-headers.js";
import type { PageTokenSigner } from "./pagination.js";
import { mountRoutes } from "./route.js";
import { gatewayRoutes } from "./routes/index.js";
import type { UpstreamAddresses, UpstreamClients } from "./upstreams.js";
import type { WriteKeys } from "./keyed-writes.js";
import type { SiteScriptsCache } from "./site-scripts.js";

export interface AppDeps {
  upstreams: UpstreamClients;
  upstreamAddresses: UpstreamAddresses;
  authenticator: TokenAuthenticator;
  urls: PublicUrls;
  bodyLimitBytes: number;
  /** Signs the list cursors handed out and verifies those sent back. */
  pageTokens: PageTokenSigner;
  /** The process's one cache budget, shared with the authenticator; a default-sized one when absent. */
  caches?: CacheBudget;
  /** Where answers to requests with an Idempotency-Key are kept; by default in this process, on `caches`. */
  idempotencyStore?: IdempotencyStore;
  /** How running requests with an Idempotency-Key hold their key (leaseFor the upstream deadline); the default deadline's when absent. */
  idempotencyLease?: IdempotencyLease;
  /** The write keys `upstreams` send (createUpstreamClients); without them a request's writes carry no key. */
  writeKeys?: WriteKeys;
  /** What /readyz consults (draining turns it off); a process never drained when absent. */
  readiness?: GatewayReadiness;
  /** The sites' scripts kept for the published view; asked at every request when absent. */
  siteScripts?: SiteScriptsCache;
  /** Rate limits per token and client IP (RATE_LIMIT_*); none when absent. */
  rateLimits?: Omit<RateLimitOptions, "authenticator">;
  /** The app target, where the app's paths no route answers are forwarded (GATEWAY_APP_URL); those paths are 404 when absent. */
  app?: { url: string; timeoutMs: number };
  /** Browser origins allowed to call the API (CORS_ALLOWED_ORIGINS); none when absent. */
  cors?: CorsPolicy;
  logger: Logger;
}

/** Builds the Koa application: cross-cutting middleware, then one router holding every route. */
export function createApp(deps: AppDeps): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  // Every error is answered by errorHandler; Koa's default stderr printing would only duplicate it.
  app.silent = true;

  const router = indexRouteMatching(new Router<GatewayState>());
  const routes = gatewayRoutes({
    upstreams: deps.upstreams,
    upstreamAddresses: deps.upstreamAddresses,
    urls: deps.urls,
    caches: deps.caches,
    authenticator: deps.authenticator,
    ...(deps.readiness ? { readiness: deps.readiness } : {}),
    ...(deps.siteScripts ? { siteScripts: deps.siteScripts } : {}),
  });
  // Probes, signed downloads, SSO and integrations' public endpoints carry no bearer token (a
  // download's credential is in its URL).
  for (const route of routes.direct) router.register(route.path, [route.method], route.handle);
  mountRoutes(router, routes.api, {
    authenticator: deps.authenticator,
    bodyLimitBytes: deps.bodyLimitBytes,
    pageTokens: deps.pageTokens,
  });

  // Outermost: it writes what every other middleware has finished with.
  app.use(writeChunkedBodies());
  app.use(requestMetrics());
  app.use(requestId());
  app.use(accessLog(deps.logger));
  // Before anything that answers: errors, replays and preflights carry them too.
  app.use(securityHeaders({ https: deps.urls.api.startsWith("https:") }));
  app.use(cors(deps.cors ?? { allowedOrigins: [] }));
  // Before the error handler: it keeps the answer the client reads, errors included.
  app.use(
    idempotency(deps.idempotencyStore ?? new MemoryIdempotencyStore(deps.caches ?? new CacheBudget(DEFAULT_GATEWAY_CACHE_BYTES)), deps.logger, {
      ...(deps.idempotencyLease ? { lease: deps.idempotencyLease } : {}),
      ...(deps.writeKeys ? { writeKeys: deps.writeKeys } : {}),
    }),
  );
  app.use(errorHandler(deps.logger));
  // Inside the error handler (which shapes its 429), before any route: 404s are counted too.
  if (deps.rateLimits) app.use(rateLimit({ ...deps.rateLimits, authenticator: deps.authenticator }));
  app.use(router.routes());
  if (deps.app) app.use(forwardToApp(deps.app.url, { timeoutMs: deps.app.timeoutMs }));
  app.use(routeFallback());
  return app;
}
