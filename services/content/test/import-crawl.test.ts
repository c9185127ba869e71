import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CRAWL_LIMITS, isInScope, pageKey, pathSegments, scopeOf, type CrawlLimits } from "../src/import/domain/crawl.js";
import { crawlSite } from "../src/import/store/crawl-site.js";
import { safeFetchPolicy, SafeFetchError } from "@imprint/runtime";
import { serveSite, type TestSite } from "./fixtures/site/server.js";

const policy = safeFetchPolicy({ allowPrivateAddresses: true, service: "content" }, { requestTimeoutMs: 2_000 });
const limits = (overrides: Partial<CrawlLimits> = {}): CrawlLimits => ({ ...DEFAULT_CRAWL_LIMITS, ...overrides });

describe("site scope", () => {
  it.each([
    ["http://s.test/docs/", "/docs/"],
    ["http://s.test/docs/index.html", "/docs/"],
    ["http://s.test/docs", "/docs/"],
    ["http://s.test/docs/guide/setup.html", "/docs/guide/"],
    ["http://s.test/", "/"],
  ])("%s covers %s", (start, basePath) => {
    expect(scopeOf(new URL(start))).toEqual({ origin: "http://s.test", basePath });
  });

  it("keeps to the origin and the start path", () => {
    const scope = scopeOf(new URL("http://s.test/docs/"));
    expect(isInScope(new URL("http://s.test/docs/a/b"), scope)).toBe(true);
    expect(isInScope(new URL("http://s.test/docs"), scope)).toBe(true);
    expect(isInScope(new URL("http://s.test/docsearch"), scope)).toBe(false);
    expect(isInScope(new URL("http://s.test/other/"), scope)).toBe(false);
    expect(isInScope(new URL("https://s.test/docs/a"), scope)).toBe(false);
    expect(isInScope(new URL("http://s.test:8080/docs/a"), scope)).toBe(false);
  });

  it("folds index documents, trailing slashes, fragments and queries into one page key", () => {
    const keys = ["http://s.test/docs/a", "http://s.test/docs/a/", "http://s.test/docs/a/index.html", "http://s.test/docs/a/?x=1#top"].map((u) =>
      pageKey(new URL(u)),
    );
    expect(new Set(keys)).toEqual(new Set(["http://s.test/docs/a"]));
  });

  it("splits paths below the scope into decoded segments", () => {
    const scope = scopeOf(new URL("http://s.test/docs/"));
    expect(pathSegments(new URL("http://s.test/docs/guide/set%20up.html"), scope)).toEqual(["guide", "set up.html"]);
    expect(pathSegments(new URL("http://s.test/docs/index.html"), scope)).toEqual([]);
    expect(pathSegments(new URL("http://s.test/docs"), scope)).toEqual([]);
  });
});

describe("crawlSite", () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await serveSite({
      "/loop/": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end('<main><h1>Loop</h1><a href="a.html">a</a><a href="broken.html">broken</a><a href="data.json">data</a><a href="feed">feed</a></main>');
      },
      "/loop/a.html": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end('<main><a href="b.html">b</a><a href="/loop/">home</a><a href="moved">moved</a></main>');
      },
      "/loop/b.html": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end('<main><a href="c.html">c</a></main>');
      },
      "/loop/c.html": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<main>deepest</main>");
      },
      "/loop/moved": (_request, response) => {
        response.writeHead(301, { location: "/loop/b.html" });
        response.end();
      },
      "/loop/feed": (_request, response) => {
        response.writeHead(200, { "content-type": "application/rss+xml" });
        response.end("<rss/>");
      },
      "/start-moved": (_request, response) => {
        response.writeHead(302, { location: "/docs/" });
        response.end();
      },
    });
  });
  afterAll(() => site.close());

  it("visits the same-site pages breadth-first, in discovery order, and nothing outside the start path", async () => {
    const before = site.requests.length;
    const result = await crawlSite(new URL(`${site.origin}/docs/`), { policy, limits: limits() });
    expect(result.pages.map((page) => [page.url.pathname, page.depth, page.order])).toEqual([
      ["/docs/", 0, 0],
      ["/docs/guide/", 1, 1],
      ["/docs/guide/install.html", 1, 2],
      ["/docs/guide/configure.html", 1, 3],
      ["/docs/api/reference.html", 1, 4],
    ]);
    expect(result.failed).toEqual([]);
    expect(result.notVisited).toBe(0);
    const requested = site.requests.slice(before);
    expect(requested).not.toContain("/other/elsewhere.html");
    expect(requested).not.toContain("/docs/files/manual.pdf");
    // Each page once, although several pages link to each other.
    expect(requested.filter((path) => path === "/docs/guide/install.html")).toHaveLength(1);
  });

  it("follows a redirected start URL and scopes the site from where it landed", async () => {
    const result = await crawlSite(new URL(`${site.origin}/start-moved`), { policy, limits: limits() });
    expect(result.scope.basePath).toBe("/docs/");
    expect(result.pages).toHaveLength(5);
    expect(result.pages[0]!.keys).toEqual([`${site.origin}/start-moved`, `${site.origin}/docs`]);
  });

  it("records failed pages, skips non-HTML answers, and folds a redirect onto the page it lands on", async () => {
    const result = await crawlSite(new URL(`${site.origin}/loop/`), { policy, limits: limits() });
    expect(result.pages.map((page) => page.url.pathname)).toEqual(["/loop/", "/loop/a.html", "/loop/b.html", "/loop/c.html"]);
    expect(result.failed).toEqual([{ url: new URL(`${site.origin}/loop/broken.html`), reason: "HTTP 404" }]);
    const b = result.pages.find((page) => page.url.pathname === "/loop/b.html")!;
    expect(b.keys).toEqual([`${site.origin}/loop/b.html`, `${site.origin}/loop/moved`]);
  });

  it("stops at the page count", async () => {
    const result = await crawlSite(new URL(`${site.origin}/docs/`), { policy, limits: limits({ maxPages: 2 }) });
    expect(result.pages).toHaveLength(2);
    expect(result.notVisited).toBe(3);
  });

  it("stops at the depth", async () => {
    const result = await crawlSite(new URL(`${site.origin}/loop/`), { policy, limits: limits({ maxDepth: 1 }) });
    // a.html is one hop from the start; b.html and moved, linked from a.html, are two.
    expect(result.pages.map((page) => page.url.pathname)).toEqual(["/loop/", "/loop/a.html"]);
    expect(result.notVisited).toBe(2);
  });

  it("stops at the byte budget", async () => {
    const result = await crawlSite(new URL(`${site.origin}/docs/`), { policy, limits: limits({ maxTotalBytes: 2_500 }) });
    expect(result.pages.length).toBeGreaterThanOrEqual(1);
    expect(result.pages.length).toBeLessThan(5);
  });

  it("throws when the start page cannot be fetched", async () => {
    await expect(crawlSite(new URL(`${site.origin}/nowhere/`), { policy, limits: limits() })).rejects.toThrow(SafeFetchError);
    await expect(crawlSite(new URL(`${site.origin}/docs/images/logo.png`), { policy, limits: limits() })).rejects.toThrow("unsupported content type image/png");
  });
});
