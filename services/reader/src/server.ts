import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { jwtVerify } from "jose";
import { documentToHtml, type ConditionContext, type ConditionValue, type JsonDocument } from "@imprint/document";
import { PublishedContentServiceService, type GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import { AppError, createLogger, createPromiseClient, type Logger } from "@imprint/runtime/core";
import type { ReaderConfig } from "./config.js";
import { ancestorsOf, chromeOf, findPage, locate, pageTree, readingOrder, sectionEntries, siteSpaceUrl, urlOfPage, type ReaderSite } from "./site.js";
import { readerAssets } from "./views/assets.js";
import type { ViewFrame } from "./views/model.js";
import { renderPage, renderStatus } from "./views/render.js";

export interface ReaderHandle {
  /** Where this process listens, e.g. http://127.0.0.1:8090. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Bounded map of the newest entries (a Map iterates in insertion order). */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

const COOKIE = (siteId: string) => `imprint_visitor_${siteId.replace(/-/g, "")}`;

/** The visitor's claims from a token the site's key signed (HS256, the key's text as GitBook signs it); null when it does not verify. */
async function siteClaims(token: string, key: string): Promise<{ claims: Record<string, ConditionValue>; exp: number } | null> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(key), { algorithms: ["HS256"], requiredClaims: ["exp"] });
    return { claims: payload as Record<string, ConditionValue>, exp: payload.exp! };
  } catch {
    return null;
  }
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The reader: every published site as HTML (and each page as markdown) at
 * `<IMPRINT_READER_URL>/<organizationId>/<basename or id>/…`, and on the site's custom hostname.
 * Anything a visitor may not see answers the same 404 as what does not exist.
 */
export async function startReader(config: ReaderConfig, options: { logger?: Logger } = {}): Promise<ReaderHandle> {
  const logger = options.logger ?? createLogger("reader", { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const sites = createPromiseClient(SiteServiceService, config.PUBLISHING_GRPC_ADDRESS, { defaultTimeoutMs: config.UPSTREAM_TIMEOUT_MS });
  const content = createPromiseClient(PublishedContentServiceService, config.CONTENT_GRPC_ADDRESS, { defaultTimeoutMs: config.UPSTREAM_TIMEOUT_MS });
  const server = createServer({ keepAliveTimeout: 65_000 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.READER_PORT, config.READER_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${hostForUrl(config.READER_HOST)}:${port}`;
  const publicUrl = config.IMPRINT_READER_URL ?? url;
  const publicHost = new URL(publicUrl).host;

  const siteCache = new Recent<{ site: ReaderSite; at: number }>(1_000);
  const spaceCache = new Recent<GetPublishedSpaceResponse>(1_000);
  const bodyCache = new Recent<{ html: string; toc: { id: string; title: string; depth: number }[] }>(2_000);

  async function readSite(lookup: { hostname: string; organizationId: string; site: string }): Promise<ReaderSite | null> {
    const key = JSON.stringify(lookup);
    const held = siteCache.get(key);
    if (held && Date.now() - held.at < config.SITE_CACHE_TTL_MS) return held.site;
    try {
      const site = await sites.getReaderSite(lookup);
      siteCache.set(key, { site, at: Date.now() });
      return site;
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }
  }

  /** The space at its current revision: asked every time, answered "not modified" while it holds. */
  async function readSpace(spaceId: string): Promise<GetPublishedSpaceResponse | null> {
    const held = spaceCache.get(spaceId);
    try {
      const answer = await content.getPublishedSpace({ spaceId, knownRevisionId: held?.revisionId ?? "" });
      if (answer.notModified && held) return held;
      spaceCache.set(spaceId, answer);
      return answer;
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }
  }

  const app = new Koa();
  app.use(async (ctx) => {
    const notFound = (frame?: ViewFrame) => {
      ctx.status = 404;
      ctx.type = "text/html; charset=utf-8";
      ctx.body = renderStatus({ status: 404, title: "Page not found", message: "There is no page at this address.", ...(frame ? { frame } : {}) });
    };
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.status = 405;
      ctx.set("Allow", "GET, HEAD");
      return;
    }
    for (const asset of [readerAssets.style, readerAssets.script]) {
      if (ctx.path === asset.path) {
        ctx.type = asset.contentType;
        ctx.set("Cache-Control", "public, max-age=31536000, immutable");
        ctx.body = asset.body;
        return;
      }
    }
    if (ctx.path === "/healthz") {
      ctx.body = { status: "ok" };
      return;
    }

    // The site: by custom hostname, else by /<organization>/<site>/ on the reader's own host.
    const host = (ctx.get("host") || "").toLowerCase().replace(/:\d+$/, "");
    let segments = ctx.path.split("/").filter((segment) => segment !== "").map((segment) => decodeURIComponent(segment));
    let site: ReaderSite | null;
    let base: string;
    if (host !== "" && host !== publicHost.replace(/:\d+$/, "") && host !== "127.0.0.1" && host !== "localhost") {
      site = await readSite({ hostname: host, organizationId: "", site: "" });
      base = "/";
    } else {
      const [organizationId = "", siteSegment = ""] = segments;
      site = siteSegment ? await readSite({ hostname: "", organizationId, site: siteSegment }) : null;
      base = `/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteSegment)}/`;
      segments = segments.slice(2);
    }
    if (!site) return notFound();

    // Share-link sites are read through an active link's key, the first segment after the base.
    if (site.visibility === "share-link") {
      const key = segments[0] ?? "";
      if (!key || !(await sites.checkShareKey({ siteId: site.siteId, key })).active) return notFound();
      base = `${base}${encodeURIComponent(key)}/`;
      segments = segments.slice(1);
    }

    // Visitor-auth sites: a token signed with the site's key (from `jwt_token`, then a cookie), or a member's token.
    const context: ConditionContext = { visitor: { claims: {} } };
    if (site.visibility === "visitor-auth") {
      const cookieName = COOKIE(site.siteId);
      const fromQuery = typeof ctx.query.jwt_token === "string" ? ctx.query.jwt_token : "";
      const token = fromQuery || ctx.cookies.get(cookieName) || "";
      let verified = token ? await siteClaims(token, site.visitorAuthKey) : null;
      if (!verified && token) {
        const member = await sites.verifyMemberVisitorToken({ organizationId: site.organizationId, token });
        if (member.valid) {
          verified = { claims: { id: member.userId, email: member.email, role: member.role, teams: member.teams }, exp: Math.floor((member.expiresAt?.getTime() ?? 0) / 1000) };
        }
      }
      if (!verified) {
        if (site.fallbackUrl) {
          const fallback = new URL(site.fallbackUrl);
          fallback.searchParams.set("location", `${ctx.protocol}://${ctx.host}${ctx.url}`);
          ctx.redirect(fallback.toString());
          return;
        }
        ctx.status = 401;
        ctx.type = "text/html; charset=utf-8";
        ctx.body = renderStatus({ status: 401, title: "Sign in to read this site", message: "This documentation is for signed-in readers only." });
        return;
      }
      if (fromQuery) {
        ctx.cookies.set(cookieName, fromQuery, { httpOnly: true, sameSite: "lax", secure: ctx.protocol === "https", path: base, expires: new Date(verified.exp * 1000), overwrite: true });
      }
      context.visitor = { claims: verified.claims };
    }

    const markdownRequested = segments.length > 0 && segments[segments.length - 1]!.endsWith(".md");
    if (markdownRequested) segments[segments.length - 1] = segments[segments.length - 1]!.slice(0, -3);
    const location = locate(site, segments, context, base);
    if (!location) return notFound();
    const space = await readSpace(location.siteSpace.spaceId);
    if (!space) return notFound();
    const page = findPage(space, location.pagePath);
    if (!page) return notFound();

    const pages = readingOrder(space.pages);
    const first = pages.find((candidate) => !candidate.hidden) ?? pages[0];
    const wantsMarkdown = markdownRequested || (ctx.accepts("text/html", "text/markdown") === "text/markdown" && !ctx.get("accept").includes("text/html"));
    const privateSite = site.visibility !== "public";
    ctx.set("Cache-Control", privateSite ? "private, no-cache" : "public, max-age=0, must-revalidate");
    if (wantsMarkdown) {
      const body = await content.getPublishedPage({ spaceId: space.spaceId, revisionId: space.revisionId, pageId: page.id });
      ctx.type = "text/markdown; charset=utf-8";
      ctx.body = `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ""}${body.markdown}`;
      return;
    }

    const bodyKey = `${space.revisionId}/${page.id}/${location.prefix}`;
    let body = bodyCache.get(bodyKey);
    if (!body) {
      const read = await content.getPublishedPage({ spaceId: space.spaceId, revisionId: space.revisionId, pageId: page.id });
      const byId = new Map(pages.map((candidate) => [candidate.id, candidate]));
      body = documentToHtml(JSON.parse(read.documentJson) as JsonDocument, {
        resolveRef: (ref) => {
          if (ref.kind === "page") return byId.get(ref.page) ? urlOfPage(location.prefix, byId.get(ref.page)!, first) : null;
          if (ref.kind === "anchor") return ref.page ? (byId.get(ref.page) ? `${urlOfPage(location.prefix, byId.get(ref.page)!, first)}#${ref.anchor}` : null) : `#${ref.anchor}`;
          return null;
        },
      });
      bodyCache.set(bodyKey, body);
    }

    const visible = pages.filter((candidate) => !candidate.hidden);
    const index = visible.findIndex((candidate) => candidate.id === page.id);
    const link = (target: (typeof pages)[number] | undefined) => (target ? { title: target.title, url: urlOfPage(location.prefix, target, first) } : undefined);
    const chrome = chromeOf(site, location.siteSpace.customizationJson || site.customizationJson);
    const noindex = site.visibility !== "public" || page.noIndex || ancestorsOf(space.pages, page).some((ancestor) => ancestor.noIndex);
    const pageUrl = urlOfPage(location.prefix, page, first);
    const levelPrefix = location.siteSpace.default ? location.prefix : location.prefix.slice(0, location.prefix.length - encodeURIComponent(location.siteSpace.path).length - 1);
    const frame: ViewFrame = {
      chrome,
      meta: { title: `${page.title} · ${chrome.title}`, ...(page.description ? { description: page.description } : {}), canonicalUrl: `${publicUrl}${pageUrl}`, noindex, siteName: chrome.title, markdownUrl: `${publicUrl}${pageUrl === location.prefix ? `${location.prefix}${page.path}` : pageUrl}.md` },
      homeUrl: base,
      searchUrl: "",
      ...(site.items.length > 0 ? { sections: sectionEntries(site, context, base, location.section) } : {}),
      variants: location.variants.map((variant) => ({ title: variant.path, url: siteSpaceUrl(levelPrefix, variant, location.variants), active: variant.id === location.siteSpace.id })),
      tree: pageTree(space.pages, location.prefix, page, first),
      language: "en",
    };
    const previous = index > 0 ? link(visible[index - 1]) : undefined;
    const next = index >= 0 && index < visible.length - 1 ? link(visible[index + 1]) : undefined;
    ctx.type = "text/html; charset=utf-8";
    ctx.body = renderPage({
      ...frame,
      page: {
        title: page.title,
        ...(page.emoji ? { emoji: String.fromCodePoint(...page.emoji.split("-").map((code) => Number.parseInt(code, 16)).filter((code) => Number.isFinite(code))) } : {}),
        ...(page.description ? { description: page.description } : {}),
        bodyHtml: body.html,
        toc: body.toc,
        breadcrumbs: ancestorsOf(space.pages, page).filter((ancestor) => ancestor.type === page.type).map((ancestor) => ({ title: ancestor.title, url: urlOfPage(location.prefix, ancestor, first) })),
        ...(previous ? { previous } : {}),
        ...(next ? { next } : {}),
        ...(space.revisionCreatedAt ? { lastUpdated: space.revisionCreatedAt } : {}),
        markdownUrl: frame.meta.markdownUrl!,
      },
    });
  });
  app.on("error", (error: unknown) => logger.error("reader request failed", { error: error instanceof Error ? error.message : String(error) }));

  const handle = app.callback();
  server.on("request", (request, response) => void handle(request, response));
  logger.info("reader listening", { url, public_url: publicUrl });
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          sites.close();
          content.close();
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
