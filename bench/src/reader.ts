import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createIdentityClients } from "@imprint/runtime";
import { findChromium } from "@imprint/runtime/infrastructure";
import { gatewayPost } from "./editing.js";
import type { LighthouseFailedAudit, LighthouseScores } from "./lighthouse.js";
import { runLoad, type LoadResult } from "./load.js";
import { seededRandom as random } from "./seeded-random.js";
import { percentile } from "./stats.js";

/**
 * The reader figures of `npm run bench`: a space of BENCH_READER_PAGES pages of about 5,000 words
 * each (headings, paragraphs, TypeScript code blocks, tables, lists), written through the REST API
 * as any client writes (a change request's content, then its merge), published on a public site
 * and on a visitor-auth site with adaptive content; then, through the reader the stack hosts:
 *
 * 1. first render: each page requested exactly once, one after the other (nothing rendered yet);
 * 2. a page the reader keeps, at 32 connections, against the reference: a plain node:http server
 *    (its own process) answering the very bytes the reader answered, at the same concurrency;
 * 3. the same page on the visitor-auth site, read with the visitor's cookie (a token signed with
 *    the site's key, claims that open a conditional site-space), at the same concurrency;
 * 4. Lighthouse's audit of the public page (performance, accessibility, best practices, SEO).
 */

const BENCH_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

export interface ReaderTarget {
  gatewayUrl: string;
  /** Where the stack's reader is reached (the API's `urls.published` are built on it). */
  readerUrl: string;
  identityGrpcAddress: string;
  /** Where the Lighthouse HTML report is written (bench/results/lighthouse-<timestamp>.html). */
  lighthouseReportPath: string;
}

export interface ReaderBenchmarkSettings {
  /** Pages of ~5,000 words published (each rendered once for the first-render figure). */
  pages: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Whether the page is audited with Lighthouse (needs Chromium: CHROMIUM_PATH or the usual paths). */
  lighthouse: boolean;
}

export interface ReaderLighthouse {
  url: string;
  /** Where the HTML report was written, when the audit ran. */
  reportPath?: string;
  scores?: LighthouseScores;
  failedAudits?: LighthouseFailedAudit[];
  /** Why there are no scores (no Chromium, or the audit failed). */
  error?: string;
}

export interface ReaderFigures {
  pages: number;
  /** Words in a page's markdown (prose, code and table cells), averaged over the pages. */
  wordsPerPage: number;
  /** The measured page's HTML, as the reader answers it. */
  pageBytes: number;
  connections: number;
  /** Each page's first request, one at a time: p50, p99, max (ms). */
  firstRender: { count: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** The page the reader keeps, on the public site. */
  cached: LoadResult;
  /** The reference: the same bytes from a plain node:http server, measured in the same run. */
  staticReference: LoadResult;
  /** The same page on the visitor-auth site with adaptive content, read with the visitor's cookie. */
  visitorAuth: LoadResult;
  /** Whether the visitor's claims opened the conditional site-space (its link is on the page). */
  visitorSeesConditional: boolean;
  lighthouse?: ReaderLighthouse;
  /** Lighthouse's audit of a page holding math, tabs, an OpenAPI operation and a mermaid diagram (below its first screen). */
  blocksLighthouse?: ReaderLighthouse;
}

/** The OpenAPI specification the blocks page's operation comes from, served to content by the bench itself. */
const BLOCKS_SPEC = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "https://pets.example.com/v1" }],
  paths: {
    "/pets/{petId}": {
      get: {
        summary: "Get a pet",
        parameters: [
          { name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "string" } },
          { name: "fields", in: "query", description: "Fields to include", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "The pet",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } } } },
          },
          "404": { description: "No such pet" },
        },
      },
    },
  },
};

/** A page with each block that brings its own weight: math (inline and block), tabs, an OpenAPI operation, then a diagram. */
const BLOCKS_PAGE = [
  "---",
  "description: Math, tabs, an API operation and a diagram on one page.",
  "---",
  "",
  "# Blocks",
  "",
  "The energy of a mass is $$E = mc^2$$, and the area under $$x^2$$ from 0 to 1 is:",
  "",
  "$$",
  "\\int_0^1 x^2\\,dx = \\frac{1}{3}",
  "$$",
  "",
  "{% tabs %}",
  '{% tab title="JavaScript" %}',
  "```js",
  "const pet = await fetch('/pets/1').then((answer) => answer.json());",
  "```",
  "{% endtab %}",
  '{% tab title="Python" %}',
  "```python",
  "pet = requests.get('/pets/1').json()",
  "```",
  "{% endtab %}",
  "{% endtabs %}",
  "",
  '{% openapi-operation spec="bench-pets" path="/pets/{petId}" method="get" %}',
  "{% endopenapi-operation %}",
  "",
  "## How a change is published",
  "",
  "```mermaid",
  "graph LR",
  "  Write-->Review-->Merge-->Publish",
  "```",
  "",
].join("\n");

type Log = (message: string) => void;

const WORDS_PER_PAGE = 5_000;
/** Pages per `POST …/content` call (about 40 KB of markdown each, well under the gateway's 1 MB body limit). */
const PAGES_PER_CALL = 10;
const HTML_HEADERS = { accept: "text/html,application/xhtml+xml" };

// ---------------------------------------------------------------------------------------------
// Content: deterministic pages of about 5,000 words

const VOCABULARY = (
  "the reader renders every published page from its document once per revision and keeps the answer " +
  "so that a visitor who comes back is served from memory while the space changes only through merged " +
  "change requests each section describes how a client configures the service connects to its upstreams " +
  "validates tokens retries failed calls and reports what it measured latency throughput memory budget " +
  "cache entry revision branch site structure variant condition claim visitor token cookie header query " +
  "path slug anchor table column value default option setting environment variable process cluster node " +
  "request response stream buffer queue event subject consumer outbox relay index search result excerpt " +
  "deployment ingress proxy hostname certificate signature key secret rotation expiry schedule backup " +
  "restore migration schema database transaction lock row version snapshot export import repository commit"
).split(" ");
const TYPES = ["string", "number", "boolean", "string[]", "Record<string, string>", "Date", "Uint8Array"];

/** Words as the figures count them: whitespace-separated tokens holding a letter or a digit. */
export function countWords(markdown: string): number {
  return markdown.split(/\s+/).filter((token) => /[A-Za-z0-9]/.test(token)).length;
}

const pageSlug = (index: number) => `page-${String(index).padStart(3, "0")}`;
/** A word only page `index` holds, to know when search has indexed the space. */
const marker = (index: number) => `readermarker${index}`;

/**
 * Page `index` (1-based) as GitBook markdown: front matter with a description, a title, then
 * sections (a heading, paragraphs with inline code, a subsection, a ```ts block, a pipe table, a
 * list) until it holds about 5,000 words.
 */
export function pageMarkdown(index: number, words = WORDS_PER_PAGE): string {
  const next = random(index * 7_919 + 17);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const word = () => pick(VOCABULARY);
  const identifier = () => `${word()}${word().replace(/^./, (c) => c.toUpperCase())}`;
  const sentence = (min: number, max: number) => {
    const count = min + Math.floor(next() * (max - min + 1));
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(i > 0 && next() < 0.06 ? `\`${identifier()}\`` : word());
    const text = parts.join(" ");
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 4 + Math.floor(next() * 3) }, () => sentence(9, 17)).join(" ");
  const title = (count: number) => {
    const text = Array.from({ length: count }, word).join(" ");
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  };
  const code = () => {
    const name = identifier();
    const fields = Array.from({ length: 5 }, () => `  ${identifier()}: ${pick(TYPES)};`);
    return [
      "```ts",
      `export interface ${name.replace(/^./, (c) => c.toUpperCase())}Options {`,
      ...fields,
      "}",
      "",
      `export async function ${name}(options: ${name.replace(/^./, (c) => c.toUpperCase())}Options): Promise<number> {`,
      `  const started = performance.now();`,
      `  // ${sentence(6, 10)}`,
      `  for (const entry of await load("${word()}", ${Math.floor(next() * 1000)})) {`,
      `    if (entry.${identifier()} === undefined) continue;`,
      `    await store.put(entry.id, { ...entry, ${identifier()}: ${next() < 0.5 ? "true" : `"${word()}"`} });`,
      "  }",
      "  return performance.now() - started;",
      "}",
      "```",
    ].join("\n");
  };
  const table = () => {
    const rows = Array.from({ length: 6 }, () => `| \`${identifier()}\` | \`${pick(TYPES)}\` | \`${word()}\` | ${sentence(5, 8).slice(0, -1)} |`);
    return ["| Option | Type | Default | Description |", "| --- | --- | --- | --- |", ...rows].join("\n");
  };
  const list = () => Array.from({ length: 4 }, () => `- ${sentence(6, 10)}`).join("\n");

  const blocks = [
    "---",
    `description: ${sentence(12, 16)} ${marker(index)}`,
    "---",
    "",
    `# Reader benchmark page ${index}`,
    "",
    paragraph(),
    ...(index > 1 ? ["", `Continued from [page ${index - 1}](./${pageSlug(index - 1)}.md).`] : []),
  ];
  for (let section = 1; countWords(blocks.join("\n")) < words; section++) {
    blocks.push(
      "",
      `## ${section}. ${title(3 + Math.floor(next() * 3))}`,
      "",
      paragraph(),
      "",
      paragraph(),
      "",
      `### ${title(2 + Math.floor(next() * 3))}`,
      "",
      paragraph(),
      "",
      code(),
      "",
      paragraph(),
      "",
      table(),
      "",
      list(),
    );
  }
  return `${blocks.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** A JWT signed with HS256 over the key's text, as the site's visitors' tokens are signed (RFC 7519, as jose's SignJWT writes it). */
export function signVisitorToken(claims: Record<string, unknown>, key: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
}

/** Calls the gateway as `token`'s user with any method: the JSON answer; an answer of 300 or more throws with its body. */
function gatewayCall(gatewayUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
  };
}

/** Polls `probe` until it returns a value; throws after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 120_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (performance.now() > deadline) throw new Error(`${what} within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface StaticServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts bench/dist/static-server.js as its own process, answering `body` with `contentType`. */
async function startStaticServer(body: string, contentType: string): Promise<StaticServer> {
  const directory = await mkdtemp(join(tmpdir(), "imprint-bench-static-"));
  const file = join(directory, "page.html");
  await writeFile(file, body);
  const child = spawn(process.execPath, [join(BENCH_ROOT, "dist", "static-server.js")], {
    env: { ...process.env, STATIC_BODY_FILE: file, STATIC_CONTENT_TYPE: contentType },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the static reference server did not start within 10 s:\n${lines.join("\n")}`)), 10_000);
      createInterface({ input: child.stdout }).once("line", (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
      void exited.then(() => reject(new Error(`the static reference server exited:\n${lines.join("\n")}`)));
    });
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** BLOCKS_SPEC over HTTP on loopback, for content to fetch once. */
async function serveSpec(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(BLOCKS_SPEC));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pets.json`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const describe = (result: LoadResult) =>
  `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${result.non2xx + result.errors ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ""}`;

// ---------------------------------------------------------------------------------------------
// The benchmark

export async function runReaderBenchmark(target: ReaderTarget, settings: ReaderBenchmarkSettings, log: Log): Promise<ReaderFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Reader Benchmark",
      ownerEmail: "bench-reader@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const orgId = organization.organizationId;
    const post = gatewayPost(target.gatewayUrl, organization.token);
    const call = gatewayCall(target.gatewayUrl, organization.token);

    // The content: an overview (the site's home page, read while waiting for the site) and the
    // measured pages, written through one change request and merged as one revision.
    const pages = Array.from({ length: settings.pages }, (_, i) => pageMarkdown(i + 1));
    const wordsPerPage = pages.reduce((sum, markdown) => sum + countWords(markdown), 0) / pages.length;
    log(
      `reader: writing ${settings.pages} pages of ~${wordsPerPage.toFixed(0)} words (${(pages.reduce((sum, markdown) => sum + markdown.length, 0) / 1024 / 1024).toFixed(1)} MB of markdown)`,
    );
    const writeSpace = async (spaceId: string, changes: unknown[]) => {
      const changeRequest = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: "Reader benchmark pages" });
      for (let start = 0; start < changes.length; start += PAGES_PER_CALL) {
        await post(`/v1/spaces/${spaceId}/change-requests/${String(changeRequest.id)}/content`, { changes: changes.slice(start, start + PAGES_PER_CALL) });
      }
      await post(`/v1/spaces/${spaceId}/change-requests/${String(changeRequest.id)}/merge`);
    };
    const insert = (slug: string, markdown: string) => ({ operation: "insert_page", ref: slug, slug, document: { markdown } });
    // For the audit of a page with heavier blocks: the OpenAPI specification its operation comes from,
    // served from this process to content (the stack allows private fetches when it is audited).
    const specServer = settings.lighthouse ? await serveSpec() : undefined;
    try {
      if (specServer) {
        await post(`/v1/orgs/${orgId}/openapi`, { slug: "bench-pets", source: { url: specServer.url } });
        await until("the OpenAPI specification processed", async () =>
          (await call("GET", `/v1/orgs/${orgId}/openapi/bench-pets`)).lastVersion !== undefined ? true : null,
        );
      }
    } finally {
      await specServer?.stop();
    }
    const spaceId = (await post(`/v1/orgs/${orgId}/spaces`, { title: "Reader benchmark" })).id as string;
    await writeSpace(spaceId, [
      insert("overview", "---\ndescription: The reader benchmark's pages.\n---\n\n# Overview\n\nThe pages of this space are generated by the benchmark.\n"),
      ...pages.map((markdown, i) => insert(pageSlug(i + 1), markdown)),
      ...(settings.lighthouse ? [insert("blocks", BLOCKS_PAGE)] : []),
    ]);
    const proSpaceId = (await post(`/v1/orgs/${orgId}/spaces`, { title: "Pro" })).id as string;
    await writeSpace(proSpaceId, [insert("billing", "---\ndescription: Invoices for pro customers.\n---\n\n# Billing\n\nInvoices for pro customers.\n")]);

    // The public site.
    const publicSite = await post(`/v1/orgs/${orgId}/sites`, { title: "Reader benchmark", spaces: [spaceId] });
    await call("PATCH", `/v1/orgs/${orgId}/sites/${String(publicSite.id)}`, { basename: "reader-bench" });
    const publicBase = publishedUrl(await post(`/v1/orgs/${orgId}/sites/${String(publicSite.id)}/publish`), target.readerUrl);

    // The visitor-auth site with adaptive content: the same space, and a site-space only pro visitors see.
    const authSite = await post(`/v1/orgs/${orgId}/sites`, { title: "Reader benchmark (visitors)", spaces: [spaceId, proSpaceId] });
    const authSiteId = String(authSite.id);
    const siteSpaces = (await call("GET", `/v1/orgs/${orgId}/sites/${authSiteId}/site-spaces`)).items as { id: string; space: { id: string } }[];
    const proSiteSpace = siteSpaces.find((siteSpace) => siteSpace.space.id === proSpaceId);
    if (!proSiteSpace) throw new Error(`reader: the visitor-auth site has no site-space of the pro space: ${JSON.stringify(siteSpaces)}`);
    await call("PATCH", `/v1/orgs/${orgId}/sites/${authSiteId}/site-spaces/${proSiteSpace.id}`, { path: "pro", condition: 'visitor.claims.plan === "pro"' });
    await call("PATCH", `/v1/orgs/${orgId}/sites/${authSiteId}`, {
      basename: "reader-bench-visitors",
      visibility: "visitor-auth",
      adaptiveContent: { enabled: true },
    });
    const authBase = publishedUrl(await post(`/v1/orgs/${orgId}/sites/${authSiteId}/publish`), target.readerUrl);
    const { privateKey } = (await call("GET", `/v1/orgs/${orgId}/sites/${authSiteId}/publishing/auth`)) as { privateKey: string };
    const token = signVisitorToken({ plan: "pro", exp: Math.floor(Date.now() / 1000) + 3_600 }, privateKey);

    // Both sites readable (the home page, not a measured one), the visitor's cookie from their token.
    await until("reader: the public site was not readable", async () => ((await fetch(publicBase, { headers: HTML_HEADERS })).status === 200 ? true : null));
    const cookie = await until("reader: the visitor-auth site did not accept a token signed with its key", async () => {
      const response = await fetch(`${authBase}?jwt_token=${token}`, { headers: HTML_HEADERS, redirect: "manual" });
      await response.body?.cancel();
      const kept = response.headers.getSetCookie().find((line) => line.startsWith("imprint_visitor_"));
      return response.status === 200 && kept ? kept.split(";")[0]! : null;
    });
    // Search indexes the new revision in the background: the figures wait until it is done.
    const last = settings.pages;
    await until(
      "reader: the space was not indexed",
      async () => {
        const body = (await call("GET", `/v1/spaces/${spaceId}/search?query=${marker(last)}`)) as { items?: unknown[] };
        return (body.items?.length ?? 0) > 0 ? true : null;
      },
      600_000,
    );

    // 1. First render: every page once, one at a time.
    log(`reader: first render of ${settings.pages} pages, one request each`);
    const timings: number[] = [];
    for (let index = 1; index <= settings.pages; index++) {
      const started = performance.now();
      const response = await fetch(`${publicBase}${pageSlug(index)}`, { headers: HTML_HEADERS });
      await response.arrayBuffer();
      timings.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`reader: ${publicBase}${pageSlug(index)} answered ${response.status}`);
    }
    const sorted = [...timings].sort((a, b) => a - b);
    const firstRender = { count: timings.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? 0 };
    log(`         p50 ${firstRender.p50Ms.toFixed(1)} ms, p99 ${firstRender.p99Ms.toFixed(1)} ms, max ${firstRender.maxMs.toFixed(1)} ms`);

    // 2. The kept page against the same bytes from a plain node:http server, then 3. on the visitor-auth site.
    const pageUrl = `${publicBase}${pageSlug(1)}`;
    const sample = await fetch(pageUrl, { headers: HTML_HEADERS });
    const html = await sample.text();
    const contentType = sample.headers.get("content-type") ?? "text/html; charset=utf-8";
    const authPageUrl = `${authBase}${pageSlug(1)}`;
    const authPage = await fetch(authPageUrl, { headers: { ...HTML_HEADERS, cookie } });
    const authHtml = await authPage.text();
    if (authPage.status !== 200) throw new Error(`reader: ${authPageUrl} with the visitor's cookie answered ${authPage.status}`);
    const visitorSeesConditional = authHtml.includes(`href="${new URL(authBase).pathname}pro/"`);

    const load = (url: string, headers: Record<string, string>) =>
      runLoad({ url, headers, connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds });
    const reference = await startStaticServer(html, contentType);
    let staticReference: LoadResult;
    try {
      log(`reader: static reference (node:http, the same ${html.length} bytes) at ${settings.connections} connections`);
      staticReference = await load(`${reference.url}/page`, HTML_HEADERS);
      log(`         ${describe(staticReference)}`);
    } finally {
      await reference.stop();
    }
    log(`reader: GET ${new URL(pageUrl).pathname} (kept) at ${settings.connections} connections`);
    const cached = await load(pageUrl, HTML_HEADERS);
    log(`         ${describe(cached)}`);
    log(`reader: the same page on the visitor-auth site with adaptive content (the visitor's cookie) at ${settings.connections} connections`);
    const visitorAuth = await load(authPageUrl, { ...HTML_HEADERS, cookie });
    log(`         ${describe(visitorAuth)}`);

    // 4. Lighthouse.
    let lighthouse: ReaderLighthouse | undefined;
    if (settings.lighthouse) {
      lighthouse = { url: pageUrl };
      const chromePath = findChromium();
      if (!chromePath) {
        lighthouse.error = "Chromium was not found (set CHROMIUM_PATH)";
      } else {
        log(`reader: Lighthouse audit of ${pageUrl}`);
        try {
          const { auditWithLighthouse } = await import("./lighthouse.js");
          const audit = await auditWithLighthouse(pageUrl, { chromePath, reportPath: target.lighthouseReportPath });
          Object.assign(lighthouse, { reportPath: target.lighthouseReportPath, scores: audit.scores, failedAudits: audit.failedAudits });
          const { performance: perf, accessibility, bestPractices, seo } = audit.scores;
          log(`         performance ${perf}, accessibility ${accessibility}, best practices ${bestPractices}, SEO ${seo}`);
        } catch (error) {
          lighthouse.error = error instanceof Error ? error.message : String(error);
        }
      }
      if (lighthouse.error) log(`         not audited: ${lighthouse.error}`);
    }
    let blocksLighthouse: ReaderLighthouse | undefined;
    if (settings.lighthouse && !lighthouse?.error) {
      blocksLighthouse = { url: `${publicBase}blocks` };
      const reportPath = target.lighthouseReportPath.replace(/\.html$/, "-blocks.html");
      log(`reader: Lighthouse audit of ${blocksLighthouse.url} (math, tabs, an OpenAPI operation, a diagram below the first screen)`);
      try {
        const { auditWithLighthouse } = await import("./lighthouse.js");
        const audit = await auditWithLighthouse(blocksLighthouse.url, { chromePath: findChromium()!, reportPath });
        Object.assign(blocksLighthouse, { reportPath, scores: audit.scores, failedAudits: audit.failedAudits });
        const { performance: perf, accessibility, bestPractices, seo } = audit.scores;
        log(`         performance ${perf}, accessibility ${accessibility}, best practices ${bestPractices}, SEO ${seo}`);
      } catch (error) {
        blocksLighthouse.error = error instanceof Error ? error.message : String(error);
        log(`         not audited: ${blocksLighthouse.error}`);
      }
    }

    return {
      pages: settings.pages,
      wordsPerPage: Math.round(wordsPerPage),
      pageBytes: Buffer.byteLength(html),
      connections: settings.connections,
      firstRender,
      cached,
      staticReference,
      visitorAuth,
      visitorSeesConditional,
      ...(lighthouse ? { lighthouse } : {}),
      ...(blocksLighthouse ? { blocksLighthouse } : {}),
    };
  } finally {
    identity.close();
  }
}

/** The published URL of a site as the API answers it, checked to be on the stack's reader. */
function publishedUrl(site: Record<string, unknown>, readerUrl: string): string {
  const url = (site.urls as { published?: string } | undefined)?.published;
  if (!url) throw new Error(`reader: the published site has no urls.published: ${JSON.stringify(site)}`);
  if (!url.startsWith(`${readerUrl}/`)) throw new Error(`reader: the site is published at ${url}, not on the stack's reader (${readerUrl})`);
  return url.endsWith("/") ? url : `${url}/`;
}
