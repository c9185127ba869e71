import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Koa, { type ParameterizedContext } from "koa";
import {
  AppError,
  closeUpstreams,
  RateLimiter,
  createLogger,
  answerMetrics,
  closeHttpServer,
  announceDrain,
  isMetricsRequest,
  answerBeforeTracing,
  startProcessMetrics,
  RETRY_AFTER_SECONDS,
  type CoHostedServices,
  type Logger,
} from "@imprint/runtime/core";
import { MCP_PATH, serveLlmsFullTxt, serveLlmsTxt, serveMcp, serveRobots, serveSitemap } from "./agents.js";
import type { ReaderConfig } from "./config.js";
import { openReaderData, type ReaderData } from "./data.js";
import { serveFeedback, type FeedbackSinks } from "./feedback.js";
import { FILES_SEGMENT, readPage, renderNotFound, serveFile, serveHtml, serveMarkdown, serveSearch, type PageVisit } from "./pages.js";
import { CARDS_SEGMENT, serveCard } from "./cards.js";
import { followRedirect } from "./redirects.js";
import { openSiteViews, requestOf, viewedPage, type SiteViews } from "./site-views.js";
import type { ViewedPage } from "./viewed.js";
import { openReaderUpstreams } from "./upstreams.js";
import { securityHeaders } from "./security-headers.js";
import { throttledWarning } from "./throttled-warning.js";
import { readerRateLimit } from "./rate-limit.js";
import { NatsWindowCounts } from "@imprint/runtime/watch";
import { ReaderMetrics } from "./metrics.js";
import { readerAssets } from "./views/assets.js";
import { openApiAssets } from "./views/openapi.js";
import { diagramAsset } from "./views/diagrams.js";
import { fontFile } from "./views/fonts.js";
import { renderStatus } from "./views/render.js";
import { acceptedLanguage, readerWords } from "./views/words.js";
import { placedSiteSpaces, type ReaderSite } from "./site.js";
import { readerAddress, resolveVisit, type ReaderAddress, type Visit } from "./visit.js";

export interface ReaderHandle {
  /** Where this process listens, e.g. http://127.0.0.1:8090. */
  url: string;
  port: number;
  /**
   * The first half of a graceful stop: /readyz answers 503 at once while every request is still
   * answered, for `ms` (default SHUTDOWN_DRAIN_MS) or until `signal` aborts. Then call `stop`.
   */
  drain(signal?: AbortSignal, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The reader's version, told to MCP clients. */
const READER_VERSION = "0.1.0";

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The reader: every published site as HTML (and each page as markdown, plus llms.txt, sitemap,
 * robots.txt and an MCP server) at `<IMPRINT_READER_URL>/<organizationId>/<basename or id>/…`, and
 * on the site's custom hostname. Anything a visitor may not see answers the same 404 as what does
 * not exist.
 */
export async function startReader(
  config: ReaderConfig,
  /** `clock`: the rate limit's windows (tests freeze it); the system clock when absent. */
  options: { logger?: Logger; coHosted?: CoHostedServices; clock?: () => Date } = {},
): Promise<ReaderHandle> {
  const logger = options.logger ?? createLogger("reader", { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const upstreams = openReaderUpstreams(config, options.coHosted);
  const data = await openReaderData(config, upstreams, logger);
  const server = createServer({ keepAliveTimeout: 65_000 });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: config.READER_PORT, host: config.READER_HOST, reusePort: config.HTTP_REUSE_PORT }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await data.close();
    closeUpstreams(upstreams);
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${hostForUrl(config.READER_HOST)}:${port}`;
  const address = readerAddress(config.IMPRINT_READER_URL ?? url);
  const views = openSiteViews({ insights: upstreams.publishing.insights, integrationScripts: upstreams.integration?.scripts }, logger);
  const feedback: FeedbackSinks = { insights: upstreams.publishing.insights, integrationScripts: upstreams.integration?.scripts, views };

  // Per client IP, counted here and added up with the other replicas' through NATS (alone without it).
  const limiter = config.RATE_LIMIT_ENABLED
    ? new RateLimiter({
        windowMs: config.RATE_LIMIT_WINDOW_MS,
        ...(data.nats ? { shared: new NatsWindowCounts(data.nats, "reader") } : {}),
        logger,
        ...(options.clock ? { now: () => options.clock!().getTime() } : {}),
      })
    : undefined;
  const withinLimit = limiter
    ? readerRateLimit({ limiter, limitPerIp: config.READER_RATE_LIMIT_PER_IP, trustedProxies: config.TRUSTED_PROXIES, assetBase: address.path })
    : () => true;

  let draining: Promise<void> | undefined;
  const app = new Koa({ proxy: config.TRUST_PROXY });
  const metrics = new ReaderMetrics();
  app.use(metrics.middleware());
  app.use(securityHeaders(config.IMPRINT_READER_URL ?? url));
  app.use(answerUnavailable(address, logger));
  app.use(readerRoutes(data, address, views, feedback, () => draining !== undefined));
  app.on("error", (error: unknown) => logger.error("reader request failed", { error: error instanceof Error ? error.message : String(error) }));
  const handle = app.callback();
  // Every answer, kept or not: while draining it closes its connection (clients reconnect to a ready
  // replica), and past the client's limit it is the 429 (counted here). False when answered so.
  const admitted = (request: IncomingMessage, response: ServerResponse, started: number): boolean => {
    if (draining) response.setHeader("Connection", "close");
    if (withinLimit(request, response)) return true;
    metrics.observeBeforeKoa("rate_limited", request.method ?? "GET", response.statusCode, started);
    return false;
  };
  // Kept answers are replayed before Koa and before the request is even emitted: no span, no context
  // (there is nothing in them to trace).
  const keptFirst = answerBeforeTracing(server, (request, response) => {
    if (!data.kept.find(request)) return false;
    const started = performance.now();
    if (!admitted(request, response, started)) return true;
    if (data.kept.serve(request, response, views)) metrics.observeKept(request.method ?? "GET", response.statusCode, started);
    else void handle(request, response);
    return true;
  });
  // The process's metrics (every target it hosts) are served here too, before Koa.
  startProcessMetrics();
  server.on("request", (request, response) => {
    if (isMetricsRequest(request)) {
      if (draining) response.setHeader("Connection", "close");
      void answerMetrics(request, response, config.METRICS_TOKEN);
      return;
    }
    if (!admitted(request, response, performance.now())) return;
    data.kept.reading(request);
    void handle(request, response);
  });
  logger.info("reader listening", {
    url,
    public_url: config.IMPRINT_READER_URL ?? url,
    events: config.NATS_URL ? "nats" : "none",
    integrations: config.INTEGRATION_GRPC_ADDRESS ? "on" : "off",
  });

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    drain: (signal?: AbortSignal, ms = config.SHUTDOWN_DRAIN_MS) => (draining ??= announceDrain(logger, ms, signal)),
    stop: () =>
      (stopping ??= closeHttpServer(server, config.SHUTDOWN_GRACE_MS).then(async () => {
        keptFirst();
        // Views recorded until the last request are sent before the connections close.
        await Promise.allSettled([views?.close(), limiter?.close()])
          .then(() => data.close())
          .then(() => closeUpstreams(upstreams))
          .catch(() => undefined);
      })),
  };
}

/**
 * An upstream (publishing, content) that is down or too slow, for what the reader has not kept:
 * a 503 page with Retry-After, which browsers, crawlers and agents retry, instead of a 500.
 */
function answerUnavailable(address: ReaderAddress, logger: Logger) {
  // At most one line a minute, however many visitors an outage turns away.
  const warn = throttledWarning(logger, "pages answered 503: an upstream is unavailable", "requests");
  return async (ctx: ParameterizedContext, next: () => Promise<unknown>): Promise<void> => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== "unavailable" && error.code !== "deadline_exceeded")) throw error;
      warn(1, { code: error.code, error: error.message });
      ctx.status = 503;
      ctx.set("Retry-After", String(RETRY_AFTER_SECONDS));
      ctx.set("Cache-Control", "no-store");
      ctx.type = "text/html; charset=utf-8";
      // The space's language when it was read before the failure (servePage's `spaceLanguage`), else the visitor's own.
      const known = ctx.state.spaceLanguage as string | undefined;
      const language = known ?? acceptedLanguage(ctx.get("accept-language"));
      if (known === undefined) ctx.vary("Accept-Language");
      ctx.body = renderStatus({ status: 503, ...readerWords(language).unavailable, assetBase: address.path, language });
    }
  };
}

/**
 * The reader's one middleware: assets and probes, then the site a request names and what of it is
 * asked. /healthz says the process answers; /readyz too, except while it drains before stopping
 * (503), so load balancers move visitors away first.
 */
function readerRoutes(data: ReaderData, address: ReaderAddress, views: SiteViews | undefined, feedback: FeedbackSinks, isDraining: () => boolean) {
  return async (ctx: ParameterizedContext): Promise<void> => {
    for (const asset of [readerAssets.style, readerAssets.script, openApiAssets.script]) {
      if (ctx.path === asset.path || ctx.path === `${address.path}${asset.path}`) {
        ctx.type = asset.contentType;
        ctx.set("Cache-Control", "public, max-age=31536000, immutable");
        ctx.body = asset.body;
        return;
      }
    }
    const gzipAccepted = () => ctx.acceptsEncodings("gzip", "identity") === "gzip";
    const diagramFile = !ctx.path.includes("/_assets/")
      ? undefined
      : (diagramAsset(ctx.path, gzipAccepted()) ??
        (address.path && ctx.path.startsWith(address.path) ? diagramAsset(ctx.path.slice(address.path.length), gzipAccepted()) : undefined));
    if (diagramFile) {
      const diagram = await diagramFile;
      ctx.type = diagram.contentType;
      ctx.vary("Accept-Encoding");
      if (diagram.encoding) ctx.set("Content-Encoding", diagram.encoding);
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      ctx.body = diagram.body;
      return;
    }
    const font = fontFile(ctx.path.startsWith(`${address.path}/_assets/`) ? ctx.path.slice(address.path.length) : ctx.path);
    if (font) {
      ctx.type = "font/woff2";
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      ctx.body = font.body;
      return;
    }
    if (ctx.path === "/healthz") {
      ctx.body = { status: "ok" };
      return;
    }
    if (ctx.path === "/readyz") {
      ctx.set("Cache-Control", "no-store");
      if (isDraining()) {
        ctx.status = 503;
        ctx.body = { status: "shutting down" };
      } else {
        ctx.body = { status: "ok" };
      }
      return;
    }
    const outcome = await resolveVisit(ctx, data, address);
    if (outcome.kind === "not_found") return answerNotFound(ctx, address);
    if (outcome.kind === "redirect") {
      ctx.set("Cache-Control", "no-store");
      return ctx.redirect(outcome.url);
    }
    if (outcome.kind === "sign_in") {
      const language = await siteLanguage(outcome.site, data);
      const { signIn } = readerWords(language);
      ctx.status = 401;
      ctx.set("Cache-Control", "no-store");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = renderStatus({ status: 401, title: signIn.title, message: signIn.message, assetBase: address.path, language });
      return;
    }
    const visit = outcome.visit;
    const isMcp = visit.segments.join("/") === MCP_PATH;
    if (ctx.method === "POST" && !isMcp && (await serveFeedback(ctx, visit, data, feedback))) return;
    if (ctx.method !== "GET" && ctx.method !== "HEAD" && !isMcp) {
      ctx.status = 405;
      ctx.set("Allow", "GET, HEAD");
      return;
    }
    // What is shared: public sites' answers may be kept by any cache; the others only by the visitor's browser, revalidated each time.
    ctx.set("Cache-Control", visit.site.visibility === "public" && visit.contextKey === "" ? "public, max-age=0, must-revalidate" : "private, no-cache");
    if (visit.site.visibility !== "public") ctx.set("X-Robots-Tag", "noindex");
    await serveVisit(ctx, visit, data, address, views);
  };
}

/** The language of a site's first site-space as anyone sees it (its space's), for pages that show none of its content; "en" when unknown. */
async function siteLanguage(site: ReaderSite, data: ReaderData): Promise<string> {
  const first = placedSiteSpaces(site, { visitor: { claims: {} } }, "")[0];
  const space = first ? await data.space(first.siteSpace.spaceId) : null;
  return space?.language || "en";
}

function answerNotFound(ctx: ParameterizedContext, address: ReaderAddress): void {
  ctx.status = 404;
  ctx.set("Cache-Control", "no-store");
  ctx.type = "text/html; charset=utf-8";
  // No site-space is known here, its language neither: the visitor's own.
  const language = acceptedLanguage(ctx.get("accept-language"));
  const { notFound } = readerWords(language);
  ctx.vary("Accept-Language");
  ctx.body = renderStatus({ status: 404, title: notFound.title, message: notFound.message, assetBase: address.path, language });
}

/** Not found inside a site the visitor may read: the 404 in the site's frame (its navigation, search, look and language). */
async function answerNotFoundInSite(ctx: ParameterizedContext, visit: Visit, data: ReaderData, address: ReaderAddress): Promise<void> {
  const page = await renderNotFound(visit, data, visit.segments, address.path);
  if (!page) return answerNotFound(ctx, address);
  ctx.status = 404;
  ctx.set("Cache-Control", "no-store");
  ctx.set("Content-Security-Policy", page.policy);
  ctx.type = "text/html; charset=utf-8";
  ctx.body = page.html;
}

const AGENT_FILES = new Set(["llms.txt", "llms-full.txt", MCP_PATH]);

async function serveVisit(ctx: ParameterizedContext, visit: Visit, data: ReaderData, address: ReaderAddress, views: SiteViews | undefined): Promise<void> {
  const path = visit.segments.join("/");
  if (AGENT_FILES.has(path) && visit.site.agentsContext === "excluded") return answerNotFoundInSite(ctx, visit, data, address);
  switch (path) {
    case "robots.txt":
      return serveRobots(ctx, visit);
    case "sitemap.xml":
      if (!(await serveSitemap(ctx, visit, data))) await answerNotFoundInSite(ctx, visit, data, address);
      return;
    case "llms.txt":
      return serveLlmsTxt(ctx, visit, data);
    case "llms-full.txt":
      return serveLlmsFullTxt(ctx, visit, data);
    case MCP_PATH:
      return serveMcp(ctx, visit, data, READER_VERSION);
  }
  const segments = [...visit.segments];
  if (segments.length >= 2 && segments[segments.length - 2] === CARDS_SEGMENT) {
    if (!(await serveCard(ctx, visit, data, segments))) await answerNotFoundInSite(ctx, visit, data, address);
    return;
  }
  if (segments.length >= 2 && segments[segments.length - 2] === FILES_SEGMENT) {
    if (!(await serveFile(ctx, visit, data, segments))) await answerNotFoundInSite(ctx, visit, data, address);
    return;
  }
  const markdownRequested = segments.length > 0 && segments[segments.length - 1]!.endsWith(".md");
  if (markdownRequested) segments[segments.length - 1] = segments[segments.length - 1]!.slice(0, -3);
  const at = await readPage(visit, data, segments);
  // Should a later read fail, the 503 speaks the space's language (answerUnavailable).
  if (at) ctx.state.spaceLanguage = at.space.language || "en";
  if (!at) {
    // A redirect of the site only where no page is: 308 (permanent) or 307, the query string kept.
    const redirect = await followRedirect(visit, data, ctx.querystring);
    if (!redirect) return answerNotFoundInSite(ctx, visit, data, address);
    ctx.status = redirect.status;
    ctx.set("Cache-Control", "no-store");
    ctx.set("Location", redirect.url);
    return;
  }
  if (typeof ctx.query.q === "string" && !markdownRequested) return serveSearch(ctx, visit, data, at, address.path);
  const wantsMarkdown = markdownRequested || (ctx.accepts("text/html", "text/markdown") === "text/markdown" && !ctx.get("accept").includes("text/html"));
  if (wantsMarkdown) {
    if (visit.site.agentsContext === "excluded" && !markdownRequested) return servePage(ctx, visit, data, at, address, views);
    if (visit.site.agentsContext === "excluded") return answerNotFoundInSite(ctx, visit, data, address);
    await serveMarkdown(ctx, visit, data, at);
    return keepAnswer(ctx, visit, data, null);
  }
  return servePage(ctx, visit, data, at, address, views);
}

/**
 * Keeps the answer just given, for the next requests that will get exactly it (KeptAnswers: same
 * host, path and cookies), as long as the visit allows (Visit.keepableUntil).
 */
function keepAnswer(ctx: ParameterizedContext, visit: Visit, data: ReaderData, view: ViewedPage | null): void {
  // `transient`: an answer rendered without something it will have (an OpenAPI spec still processing).
  if (visit.keepableUntil === undefined || ctx.status !== 200 || !Buffer.isBuffer(ctx.body) || ctx.state.transient === true) return;
  const { connection: _connection, ...headers } = ctx.response.headers as Record<string, string | string[]>;
  data.kept.keep(ctx.req, { headers, etag: String(ctx.response.get("ETag")), body: ctx.body, view, until: visit.keepableUntil });
}

/** A page as HTML: a page view (reported to the integrations reading the site's views). */
async function servePage(
  ctx: ParameterizedContext,
  visit: Visit,
  data: ReaderData,
  at: PageVisit,
  address: ReaderAddress,
  views: SiteViews | undefined,
): Promise<void> {
  await serveHtml(ctx, visit, data, at, address.path);
  const page = viewedPage(visit, at);
  views?.record(requestOf(ctx), page);
  keepAnswer(ctx, visit, data, page);
}
