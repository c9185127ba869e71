import { safeFetch, SafeFetchError, type FetchedResource, type SafeFetchPolicy } from "@imprint/runtime";
import type { Root as HastRoot } from "hast";
import { collectLinks, parseHtml } from "./extract.js";

/** Bounds of one website crawl. */
export interface CrawlLimits {
  maxPages: number;
  /** Link hops from the start page (the start page is depth 0). */
  maxDepth: number;
  /** One page's body. */
  maxPageBytes: number;
  /** Sum of the page bodies fetched. */
  maxTotalBytes: number;
  /** Wall-clock budget of the whole crawl, in milliseconds. */
  maxDurationMs: number;
}

export const DEFAULT_CRAWL_LIMITS: CrawlLimits = {
  maxPages: 200,
  maxDepth: 5,
  maxPageBytes: 5 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  // Leaves time for the images within the import's overall fetch budget.
  maxDurationMs: 60_000,
};

/**
 * Which URLs belong to the imported site: same origin, and at or under the start URL's path.
 * The start `/docs/` (or `/docs/index.html`) covers `/docs/**`; the start `/docs` covers `/docs` and `/docs/**`.
 */
export interface SiteScope {
  origin: string;
  /** Always ends with "/". */
  basePath: string;
}

const INDEX_DOCUMENT = /\/index\.html?$/i;

export function scopeOf(start: URL): SiteScope {
  const path = start.pathname;
  let basePath: string;
  if (path.endsWith("/")) basePath = path;
  else if (/\.[a-z0-9]+$/i.test(path.slice(path.lastIndexOf("/")))) basePath = path.slice(0, path.lastIndexOf("/") + 1);
  else basePath = `${path}/`;
  return { origin: start.origin, basePath };
}

/**
 * The page's identity inside the crawl: fragment and query dropped, `index.html` and a trailing
 * slash folded, so `/docs/a`, `/docs/a/` and `/docs/a/index.html` are one page.
 */
export function pageKey(url: URL): string {
  let path = url.pathname.replace(INDEX_DOCUMENT, "/");
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return `${url.origin}${path}`;
}

export function isInScope(url: URL, scope: SiteScope): boolean {
  if (url.origin !== scope.origin) return false;
  const path = url.pathname.replace(INDEX_DOCUMENT, "/");
  return path.startsWith(scope.basePath) || `${path}/` === scope.basePath;
}

/** `/docs/guide/setup.html` under `/docs/` → ["guide", "setup.html"]; the start page itself → []. */
export function pathSegments(url: URL, scope: SiteScope): string[] {
  const path = url.pathname.replace(INDEX_DOCUMENT, "/");
  const relative = `${path}/`.startsWith(scope.basePath) ? path.slice(scope.basePath.length) : "";
  return relative
    .split("/")
    .filter((segment) => segment.length > 0)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

export interface CrawledPage {
  /** The URL that answered (after redirects, no fragment or query); relative references resolve against it. */
  url: URL;
  /** Every page key that leads to this page: the one it was linked under and, after a redirect, the final one. */
  keys: string[];
  depth: number;
  /** Order of discovery (0 = start page). */
  order: number;
  tree: HastRoot;
}

export interface FailedPage {
  url: URL;
  reason: string;
}

export interface CrawlResult {
  /** Derived from the start page's final URL (a redirect of the start URL moves the site with it). */
  scope: SiteScope;
  pages: CrawledPage[];
  /** Same-site pages linked but not imported because fetching them failed. */
  failed: FailedPage[];
  /** Same-site links never fetched because a bound (count, depth, bytes, time) was reached. */
  notVisited: number;
  /** Bytes of the pages kept (what the byte budget counts). */
  bytes: number;
}

export interface CrawlOptions {
  policy: SafeFetchPolicy;
  limits: CrawlLimits;
  /** When the overall import budget ends (shared with image downloads). */
  signal?: AbortSignal | undefined;
  /** Called after each page fetched or failed, with the counts so far; what it throws ends the crawl. */
  onProgress?: ((progress: { fetched: number; failed: number }) => Promise<void>) | undefined;
}

/** What a fetch cut short by the import's overall budget (`signal`) reports. */
export const IMPORT_TIME_LIMIT_REACHED = "the import's time limit was reached";

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
/** Links to these are obviously not pages; skipping them saves a request each. */
const NON_PAGE_EXTENSION = /\.(png|jpe?g|gif|webp|svg|ico|bmp|avif|pdf|zip|gz|tgz|tar|mp4|webm|mp3|wav|css|js|mjs|json|xml|txt|csv|woff2?|ttf|eot)$/i;

function decodeHtml(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function normalized(url: URL): URL {
  const copy = new URL(url);
  copy.hash = "";
  copy.search = "";
  return copy;
}

/**
 * Breadth-first crawl from `start` over same-site HTML pages, within the limits. A failure of the
 * start page is thrown (the import cannot proceed); later failures are recorded and skipped.
 * Same-site links that answer something other than HTML are skipped without counting as pages.
 */
export async function crawlSite(start: URL, options: CrawlOptions): Promise<CrawlResult> {
  const { limits, policy } = options;
  const deadline = AbortSignal.timeout(limits.maxDurationMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const fetchPage = (url: URL, bytesUsed: number) =>
    safeFetch(url, policy, {
      signal,
      signalReason: IMPORT_TIME_LIMIT_REACHED,
      accept: (type) => HTML_TYPES.has(type),
      maxBodyBytes: Math.min(limits.maxPageBytes, limits.maxTotalBytes - bytesUsed),
    });

  const first = await fetchPage(normalized(start), 0);
  const scope = scopeOf(normalized(first.url));
  const pages: CrawledPage[] = [];
  const failed: FailedPage[] = [];
  const seen = new Set<string>();
  const queue: { url: URL; depth: number }[] = [];
  let bytes = 0;
  let notVisited = 0;

  const accept = (fetched: FetchedResource, linkedAs: URL, depth: number) => {
    bytes += fetched.body.length;
    const url = normalized(fetched.url);
    const keys = [...new Set([pageKey(linkedAs), pageKey(url)])];
    for (const key of keys) seen.add(key);
    const tree = parseHtml(decodeHtml(fetched.body, fetched.charset));
    pages.push({ url, keys, depth, order: pages.length, tree });
    for (const link of collectLinks(tree, fetched.url)) {
      if (link.protocol !== "http:" && link.protocol !== "https:") continue;
      if (!isInScope(link, scope) || NON_PAGE_EXTENSION.test(link.pathname)) continue;
      const key = pageKey(link);
      if (seen.has(key)) continue;
      seen.add(key);
      if (depth + 1 > limits.maxDepth) notVisited += 1;
      else queue.push({ url: normalized(link), depth: depth + 1 });
    }
  };

  const progress = async () => options.onProgress?.({ fetched: pages.length, failed: failed.length });

  accept(first, start, 0);
  await progress();
  while (queue.length > 0) {
    if (pages.length >= limits.maxPages || bytes >= limits.maxTotalBytes || signal.aborted) {
      notVisited += queue.length;
      break;
    }
    const next = queue.shift()!;
    let fetched: FetchedResource;
    try {
      fetched = await fetchPage(next.url, bytes);
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      // A same-site link that turns out not to be HTML is not a page: neither imported nor failed.
      if (error.failure !== "content_type") {
        failed.push({ url: next.url, reason: error.reason });
        await progress();
      }
      continue;
    }
    // A redirect may leave the site, or land on a page already imported under another URL.
    const landed = normalized(fetched.url);
    if (!isInScope(landed, scope)) continue;
    if (pageKey(landed) !== pageKey(next.url) && seen.has(pageKey(landed))) {
      pages.find((page) => page.keys.includes(pageKey(landed)))?.keys.push(pageKey(next.url));
      continue;
    }
    accept(fetched, next.url, next.depth);
    await progress();
  }
  return { scope, pages, failed, notVisited, bytes };
}
