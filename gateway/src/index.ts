import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  answerMetrics,
  AppError,
  createLogger,
  closeHttpServer,
  announceDrain,
  isMetricsRequest,
  startProcessMetrics,
  type CoHostedServices,
  type Logger,
} from "@imprint/runtime/core";
import { createApp } from "./app.js";
import { TokenAuthenticator } from "./auth.js";
import { CacheBudget } from "@imprint/runtime/core";
import { answerParserErrors } from "./client-error.js";
import type { GatewayConfig } from "./config.js";
import { PAGE_TOKEN_SECRET_SETTING, PageTokenSigner } from "./pagination.js";
import { closeUpstreamClients, createUpstreamClients } from "./upstreams.js";
import { WriteKeys } from "./keyed-writes.js";
import { MemoryIdempotencyStore, NatsIdempotencyStore } from "./idempotency-store.js";
import { leaseFor } from "./middleware/idempotency.js";
import { followIdentityEvents } from "./identity-events.js";
import { SiteScriptsCache } from "./site-scripts.js";
import { connectNatsInBackground, NatsWindowCounts } from "@imprint/runtime/watch";
import { RateLimiter } from "@imprint/runtime/core";
import { GatewayReadiness } from "./readiness.js";

export { loadGatewayConfig, type GatewayConfig } from "./config.js";
export { createApp, type AppDeps } from "./app.js";
export { routeTable, type RouteTableEntry } from "./routes/index.js";
export { TokenAuthenticator, parseBearerToken, type Principal } from "./auth.js";
export { UPSTREAMS, type UpstreamName, type UpstreamClients } from "./upstreams.js";
export { DEFAULT_GATEWAY_CACHE_BYTES } from "./config.js";
export { GatewayReadiness } from "./readiness.js";

export interface GatewayHandle {
  /** Where this process listens, e.g. http://127.0.0.1:8080. */
  url: string;
  port: number;
  /**
   * The first half of a graceful stop: /readyz answers 503 at once while every request is still
   * answered, for `ms` (default SHUTDOWN_DRAIN_MS) or until `signal` aborts. Then call `stop`.
   */
  drain(signal?: AbortSignal, ms?: number): Promise<void>;
  /** Stops accepting connections, lets running requests finish within the grace period, closes upstream channels. */
  stop(): Promise<void>;
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startGateway(
  config: GatewayConfig,
  options: { logger?: Logger; clock?: () => Date; coHosted?: CoHostedServices } = {},
): Promise<GatewayHandle> {
  const logger = options.logger ?? createLogger("gateway", { level: config.logLevel, format: config.logFormat });
  // Requests with an Idempotency-Key send a key with each upstream write (keyed-writes.ts).
  const writeKeys = new WriteKeys();
  const upstreams = createUpstreamClients(config.upstreams, config.upstreamTimeoutMs, writeKeys, options.coHosted);

  const server = createServer({ keepAliveTimeout: 65_000 });
  answerParserErrors(server, logger);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: config.port, host: config.host, reusePort: config.reusePort }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    closeUpstreamClients(upstreams);
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${hostForUrl(config.host)}:${port}`;
  const api = config.publicUrl ?? url;

  // One byte budget for every cache of the process (tokens, page trees of every content prefix).
  const caches = new CacheBudget(config.cacheBytes);
  const authenticator = new TokenAuthenticator(
    async (token, kind) => {
      const { caller, user, expiresAt, session } = await upstreams.identity.tokens.authenticateToken({ token, session: kind === "session" });
      if (!caller || !user) throw new AppError("internal", "identity answered AuthenticateToken without a principal");
      if (kind === "session" && !session) throw new AppError("internal", "identity answered AuthenticateToken for a session without it");
      return {
        principal: {
          caller,
          user,
          ...(session ? { session: { id: session.id, method: session.method, csrfToken: session.csrfToken, expiresAt: session.expiresAt } } : {}),
        },
        expiresAt: expiresAt?.getTime(),
      };
    },
    {
      ttlMs: config.authCacheTtlMs,
      staleIfErrorMs: config.authStaleIfErrorMs,
      budget: caches,
      ...(options.clock ? { now: () => options.clock!().getTime() } : {}),
    },
  );

  // The gateway's one NATS connection, made in the background (the gateway serves while NATS is
  // down): identity's events keep the token cache honest, which stale-if-error authentication needs,
  // and answers to requests with an Idempotency-Key are shared with the other replicas through it.
  const nats = config.natsUrl ? connectNatsInBackground(config.natsUrl, "imprint-gateway", logger) : undefined;
  const identityEvents = nats ? followIdentityEvents(nats, authenticator, logger) : undefined;
  // The published view's scripts, kept per site while integration's events are heard.
  const siteScripts = new SiteScriptsCache(upstreams.integration.scripts);
  const integrationEvents = nats ? siteScripts.follow(nats, logger) : undefined;
  if (!config.natsUrl) logger.warn("NATS_URL is not set: while identity is unreachable, every authenticated request fails", { setting: "NATS_URL" });
  const closeNats = async () => {
    await identityEvents?.stop();
    await integrationEvents?.stop();
    await nats?.close();
  };
  if (!config.pageTokenSecret) {
    logger.warn(
      `${PAGE_TOKEN_SECRET_SETTING} is not set: list cursors are signed with a random key of this process, so they stop working at a restart and on other replicas`,
      {
        setting: PAGE_TOKEN_SECRET_SETTING,
      },
    );
  }
  // Answers to requests with an Idempotency-Key: in NATS (every replica sees them), in this process
  // while NATS is unreachable or when it is not configured.
  const localRecords = new MemoryIdempotencyStore(caches);
  if (!config.natsUrl) logger.info("NATS_URL is not set: answers to requests with an Idempotency-Key are kept by this process only", { setting: "NATS_URL" });
  const idempotencyStore = nats ? new NatsIdempotencyStore(nats, localRecords, logger) : localRecords;
  // Rate limits counted here and added up in NATS with the other replicas' (in this process alone without it).
  const limiter = config.rateLimits.enabled
    ? new RateLimiter({
        windowMs: config.rateLimits.windowMs,
        ...(nats ? { shared: new NatsWindowCounts(nats, "gateway") } : {}),
        logger,
        ...(options.clock ? { now: () => options.clock!().getTime() } : {}),
      })
    : undefined;
  if (!config.rateLimits.enabled) logger.warn("RATE_LIMIT_ENABLED is false: requests are not rate limited", { setting: "RATE_LIMIT_ENABLED" });
  const pageTokens = config.pageTokenSecret ? new PageTokenSigner(config.pageTokenSecret) : PageTokenSigner.ephemeral();
  // Draining (SIGTERM) turns /readyz off while every request is still answered.
  const readiness = new GatewayReadiness();
  let draining: Promise<void> | undefined;
  // Attached in the same tick as listen's callback, so no request can arrive before it.
  const app = createApp({
    upstreams,
    upstreamAddresses: config.upstreams,
    authenticator,
    urls: { api, app: config.appUrl ?? api, reader: config.readerUrl ?? `${config.appUrl ?? api}/sites` },
    bodyLimitBytes: config.bodyLimitBytes,
    pageTokens,
    caches,
    idempotencyStore,
    idempotencyLease: leaseFor(config.upstreamTimeoutMs),
    writeKeys,
    readiness,
    siteScripts,
    ...(limiter && config.rateLimits.enabled ? { rateLimits: { limiter, limits: config.rateLimits.limits, trustedProxies: config.trustedProxies } } : {}),
    cors: { allowedOrigins: config.corsAllowedOrigins },
    ...(config.appForwardUrl ? { app: { url: config.appForwardUrl, timeoutMs: config.upstreamTimeoutMs } } : {}),
    logger,
  });
  const handle = app.callback();
  // The process's metrics (every target it hosts) are served here too, before Koa: a scrape is no API request.
  startProcessMetrics();
  server.on("request", (request, response) => {
    // While draining, each answer closes its connection, so clients reconnect to a ready replica.
    if (draining) response.setHeader("Connection", "close");
    if (isMetricsRequest(request)) {
      void answerMetrics(request, response, config.metricsToken);
      return;
    }
    // Koa's handler answers every failure itself; the promise carries nothing left to handle.
    void handle(request, response);
  });
  logger.info("gateway listening", { url, public_url: api });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= closeHttpServer(server, config.shutdownGraceMs).then(async () => {
      closeUpstreamClients(upstreams);
      await Promise.all([idempotencyStore.close(), limiter?.close()])
        .then(closeNats)
        .catch((error: unknown) => logger.warn("closing NATS failed", { err: error }));
    });
    return stopping;
  };
  const drain = (signal?: AbortSignal, ms = config.shutdownDrainMs) => {
    if (!draining) {
      readiness.drain();
      draining = announceDrain(logger, ms, signal);
    }
    return draining;
  };
  return { url, port, drain, stop };
}
