import { HttpRequestMetrics, readerPagesServed } from "@imprint/runtime/core";
import type { ParameterizedContext } from "koa";

/** Files of a site named by their last segment (see serveVisit). */
const NAMED_FILES = new Set(["robots.txt", "sitemap.xml", "llms.txt", "llms-full.txt", "mcp"]);

/**
 * The reader's request series. It has no route templates (a site's pages are its own paths), so a
 * request is counted under what it was answered with: a probe, an asset, a page, markdown, a search,
 * a site file, one of the named files, a redirect, not_found, sign_in, unavailable; "kept" for the
 * answers replayed before Koa, "rate_limited" for the rate limit's 429s. Pages (HTML, markdown, search) answered 200 or 304 count as pages
 * served, rendered or kept.
 */
export class ReaderMetrics {
  private readonly requests = new HttpRequestMetrics("reader");
  private readonly rendered = readerPagesServed.child("rendered");
  private readonly kept = readerPagesServed.child("kept");

  /** A kept answer was replayed (see KeptAnswers.serve). */
  observeKept(method: string, status: number, startedMs: number): void {
    this.requests.observe("kept", method, status, startedMs);
    this.kept.inc();
  }

  /** A request answered before Koa under `route` (e.g. "rate_limited": a 429 of the rate limit). */
  observeBeforeKoa(route: string, method: string, status: number, startedMs: number): void {
    this.requests.observe(route, method, status, startedMs);
  }

  /** Koa middleware: counts and times every request Koa answers. */
  middleware() {
    return async (ctx: ParameterizedContext, next: () => Promise<unknown>): Promise<void> => {
      const started = performance.now();
      try {
        await next();
      } finally {
        const route = routeOf(ctx);
        this.requests.observe(route, ctx.method, ctx.status, started);
        if ((route === "page" || route === "markdown" || route === "search") && (ctx.status === 200 || ctx.status === 304)) this.rendered.inc();
      }
    };
  }
}

function routeOf(ctx: ParameterizedContext): string {
  if (ctx.path === "/healthz" || ctx.path === "/readyz") return ctx.path.slice(1);
  const status = ctx.status;
  if (status === 404) return "not_found";
  if (status === 401) return "sign_in";
  if (status === 503) return "unavailable";
  if (status >= 300 && status < 400 && status !== 304) return "redirect";
  const last = ctx.path.slice(ctx.path.lastIndexOf("/") + 1);
  if (NAMED_FILES.has(last)) return last;
  const type = ctx.response.type;
  if (type === "text/html") return typeof ctx.query.q === "string" ? "search" : "page";
  if (type === "text/markdown") return "markdown";
  if (type === "text/css" || type === "application/javascript" || type === "text/javascript") return "asset";
  return "file";
}
