import type { ParameterizedContext } from "koa";
import { readBoundedBody } from "@imprint/runtime/core";
import type { Page } from "@imprint/proto/content/v1/revisions";
import type { ReaderData } from "./data.js";
import { createSiteMcpServer, handleMcpRequest, type SiteAgentSource } from "./mcp/site-mcp.js";
import { pageMarkdown, readPage, searchVisible } from "./pages.js";
import { chromeOf, placedSiteSpaces, readingOrder, urlOfPage, type PlacedSiteSpace } from "./site.js";
import type { Visit } from "./visit.js";

/**
 * What the reader serves to crawlers and agents besides pages: robots.txt, sitemap.xml, llms.txt,
 * llms-full.txt and the site's MCP server. Each lists only what this visitor may read (a page of a
 * site-space hidden from them is absent everywhere).
 */

/** Where the site's MCP server answers, after the site's base (GitBook's path). */
export const MCP_PATH = "~gitbook/mcp";
/** A sitemap's limit (sitemaps.org). */
const MAX_SITEMAP_URLS = 50_000;
/** llms-full.txt stops before growing past this (a note says where the rest is). */
const MAX_LLMS_FULL_BYTES = 8 * 1024 * 1024;
/** Page bodies read at once for llms-full.txt. */
const BODY_READS_AT_ONCE = 8;
/** The largest MCP request body. */
const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** A readable page of a site-space the visitor sees, with its URL. */
interface ListedPage {
  page: Page;
  url: string;
  placed: PlacedSiteSpace;
}

/**
 * Every page the visitor can open, per site-space, in reading order: hidden pages left out, and
 * with `skipNoIndex` the noIndex pages and their descendants too.
 */
async function listPages(
  visit: Visit,
  data: ReaderData,
  options: { primaryOnly: boolean; skipNoIndex: boolean },
): Promise<{ placed: PlacedSiteSpace; title: string; revisionCreatedAt: Date | undefined; pages: ListedPage[] }[]> {
  const lists = [];
  for (const placed of placedSiteSpaces(visit.site, visit.context, visit.base)) {
    if (options.primaryOnly && !placed.primary) continue;
    const space = await data.space(placed.siteSpace.spaceId);
    if (!space) continue;
    const ordered = readingOrder(space.pages);
    const first = ordered.find((candidate) => !candidate.hidden) ?? ordered[0];
    const documents = new Set(ordered);
    const pages: ListedPage[] = [];
    const walk = (list: Page[]) => {
      for (const page of list) {
        if (page.hidden || (options.skipNoIndex && page.noIndex)) continue;
        if (documents.has(page)) pages.push({ page, url: urlOfPage(placed.prefix, page, first), placed });
        walk(page.pages);
      }
    };
    walk(space.pages);
    // A section's default variant goes by the section's title, any other variant by its space's too.
    const title = placed.section ? (placed.primary ? placed.section.title : `${placed.section.title} · ${space.title}`) : space.title;
    lists.push({ placed, title, revisionCreatedAt: space.revisionCreatedAt, pages });
  }
  return lists;
}

const xmlEscape = (text: string) => text.replace(/[<>&'"]/g, (char) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[char]!);

/** robots.txt: public sites welcome crawlers and name their sitemap; others ask them to stay out. */
export function serveRobots(ctx: ParameterizedContext, visit: Visit): void {
  ctx.type = "text/plain; charset=utf-8";
  ctx.body =
    visit.site.visibility === "public" ? `User-agent: *\nAllow: /\n\nSitemap: ${visit.origin}${visit.base}sitemap.xml\n` : "User-agent: *\nDisallow: /\n";
}

/** sitemap.xml of a public site: every indexable page the anonymous visitor sees; none for other sites (404). */
export async function serveSitemap(ctx: ParameterizedContext, visit: Visit, data: ReaderData): Promise<boolean> {
  if (visit.site.visibility !== "public") return false;
  const lines: string[] = [];
  for (const list of await listPages(visit, data, { primaryOnly: false, skipNoIndex: true })) {
    const lastmod = list.revisionCreatedAt ? `<lastmod>${list.revisionCreatedAt.toISOString()}</lastmod>` : "";
    for (const { url } of list.pages) {
      if (lines.length >= MAX_SITEMAP_URLS) break;
      lines.push(`<url><loc>${xmlEscape(`${visit.origin}${url}`)}</loc>${lastmod}</url>`);
    }
  }
  ctx.type = "application/xml; charset=utf-8";
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${lines.join("\n")}\n</urlset>\n`;
  return true;
}

const markdownUrl = (origin: string, url: string, placed: PlacedSiteSpace, page: Page) =>
  `${origin}${url === placed.prefix ? `${placed.prefix}${page.path}` : url}.md`;

/** llms.txt (llmstxt.org): the site's title, then each site-space's pages as links to their markdown. */
export async function serveLlmsTxt(ctx: ParameterizedContext, visit: Visit, data: ReaderData): Promise<void> {
  const title = chromeOf(visit.site, visit.site.customizationJson).title;
  const parts = [`# ${title}\n`];
  for (const list of await listPages(visit, data, { primaryOnly: false, skipNoIndex: false })) {
    if (list.pages.length === 0) continue;
    parts.push(`## ${list.title}\n`);
    parts.push(
      `${list.pages.map(({ page, url, placed }) => `- [${page.title.replace(/[[\]]/g, "\\$&")}](${markdownUrl(visit.origin, url, placed, page)})${page.description ? `: ${page.description}` : ""}`).join("\n")}\n`,
    );
  }
  ctx.type = "text/plain; charset=utf-8";
  ctx.body = parts.join("\n");
}

/** llms-full.txt: every page of the site's default site-spaces as markdown, one after another. */
export async function serveLlmsFullTxt(ctx: ParameterizedContext, visit: Visit, data: ReaderData): Promise<void> {
  const title = chromeOf(visit.site, visit.site.customizationJson).title;
  const chunks = [`# ${title}\n`];
  let size = chunks[0]!.length;
  let truncated = false;
  outer: for (const list of await listPages(visit, data, { primaryOnly: true, skipNoIndex: false })) {
    const space = await data.space(list.placed.siteSpace.spaceId);
    if (!space) continue;
    for (let start = 0; start < list.pages.length; start += BODY_READS_AT_ONCE) {
      const batch = list.pages.slice(start, start + BODY_READS_AT_ONCE);
      const texts = await Promise.all(batch.map(async ({ page }) => pageMarkdown(data, { space, page }, visit.context)));
      for (const [index, text] of texts.entries()) {
        const { page, url, placed } = batch[index]!;
        const chunk = `\n---\n\nURL: ${markdownUrl(visit.origin, url, placed, page)}\n\n${text.trim()}\n`;
        if (size + chunk.length > MAX_LLMS_FULL_BYTES) {
          truncated = true;
          break outer;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
    }
  }
  if (truncated) chunks.push(`\n---\n\nThe rest of this documentation is listed in ${visit.origin}${visit.base}llms.txt.\n`);
  ctx.type = "text/plain; charset=utf-8";
  ctx.body = chunks.join("");
}

/** The site's MCP server (streamable HTTP, stateless), on the same access rules as its pages. */
export async function serveMcp(ctx: ParameterizedContext, visit: Visit, data: ReaderData, version: string): Promise<void> {
  let body: unknown;
  if (ctx.method === "POST") {
    const raw = await readBody(ctx, MAX_MCP_BODY_BYTES);
    if (raw === null) {
      ctx.status = 413;
      ctx.body = { jsonrpc: "2.0", error: { code: -32600, message: `request body over ${MAX_MCP_BODY_BYTES} bytes` }, id: null };
      return;
    }
    try {
      body = JSON.parse(raw);
    } catch {
      ctx.status = 400;
      ctx.body = { jsonrpc: "2.0", error: { code: -32700, message: "request body is not JSON" }, id: null };
      return;
    }
  }
  const title = chromeOf(visit.site, visit.site.customizationJson).title;
  const source: SiteAgentSource = {
    title,
    search: async (query, limit) =>
      (await searchVisible(visit, data, query, limit)).map((hit) => ({ title: hit.title, url: `${visit.origin}${hit.url}`, excerpt: hit.excerpt })),
    getPage: async (url) => {
      let path: string;
      try {
        const parsed = new URL(url, `${visit.origin}${visit.base}`);
        if (parsed.origin !== visit.origin) return null;
        path = parsed.pathname;
      } catch {
        return null;
      }
      if (!path.startsWith(visit.base) && `${path}/` !== visit.base) return null;
      let segments: string[];
      try {
        segments = path
          .slice(visit.base.length)
          .split("/")
          .filter(Boolean)
          .map((segment) => decodeURIComponent(segment));
      } catch {
        return null;
      }
      if (segments.length > 0 && segments[segments.length - 1]!.endsWith(".md")) segments[segments.length - 1] = segments[segments.length - 1]!.slice(0, -3);
      const at = await readPage(visit, data, segments);
      if (!at) return null;
      return {
        title: at.page.title,
        url: `${visit.origin}${urlOfPage(at.location.prefix, at.page, at.first)}`,
        markdown: await pageMarkdown(data, at, visit.context),
      };
    },
  };
  ctx.respond = false;
  await handleMcpRequest(ctx.req, ctx.res, body, createSiteMcpServer(source, version));
}

/** The request body as text; null when it is over `limit` bytes. */
async function readBody(ctx: ParameterizedContext, limit: number): Promise<string | null> {
  // Past the bound the rest is read and discarded (bounded), so the client reads the 413 instead of a reset.
  const raw = await readBoundedBody(ctx.req, ctx.res, limit);
  return raw === null ? null : raw.toString("utf8");
}
