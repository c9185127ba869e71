import type { Root as HastRoot } from "hast";

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

/** What a fetch cut short by the import's overall budget (`signal`) reports. */
export const IMPORT_TIME_LIMIT_REACHED = "the import's time limit was reached";
