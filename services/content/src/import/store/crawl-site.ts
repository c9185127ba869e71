import { safeFetch, SafeFetchError, type FetchedResource, type SafeFetchPolicy } from "@imprint/runtime";
import {
  type CrawledPage,
  type CrawlLimits,
  type CrawlResult,
  type FailedPage,
  IMPORT_TIME_LIMIT_REACHED,
  isInScope,
  pageKey,
  scopeOf,
} from "../domain/crawl.js";
import { collectLinks, parseHtml } from "../domain/extract.js";

// The crawl's network side: what a crawl is (scope, limits, pages) is the domain's (domain/crawl.ts).

export interface CrawlOptions {
  policy: SafeFetchPolicy;
  limits: CrawlLimits;
  /** When the overall import budget ends (shared with image downloads). */
  signal?: AbortSignal | undefined;
  /** Called after each page fetched or failed, with the counts so far; what it throws ends the crawl. */
  onProgress?: ((progress: { fetched: number; failed: number }) => Promise<void>) | undefined;
}

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
