import { createHash } from "node:crypto";
import type { ParameterizedContext } from "koa";
import { evaluateCondition, includeKey, type ConditionContext, type ContentRef } from "@imprint/document";
import { documentToHtml } from "@imprint/document/html";
import { downloadHeaders } from "@imprint/runtime/core";
import type { GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import type { Page } from "@imprint/proto/content/v1/revisions";
import { searchVisibility, visitorDocuments, visitorMarkdown } from "./adaptive-blocks.js";
import { cardContent, cardPath } from "./cards.js";
import type { PageBody, ReaderData, RenderedAnswer, SiteScripts } from "./data.js";
import { editLinkOf, offersEditLink } from "./edit-links.js";
import {
  ancestorsOf,
  chromeOf,
  findPage,
  locate,
  pageTree,
  placedSiteSpaces,
  readingOrder,
  sectionEntries,
  siteSpaceUrl,
  urlOfPage,
  type Location,
} from "./site.js";
import type { ViewFrame, ViewSearchHit, ViewTreeItem } from "./views/model.js";
import { markdownWithOperations, pageOpenApi } from "./openapi-pages.js";
import { openApiAssets, openApiBlockHtml } from "./views/openapi.js";
import { OPENAPI_POINTER_TYPES, openApiPointerBlocks, openApiPointerHtml, pointerSpecKey } from "./views/openapi-pointers.js";
import { pagePolicy } from "./views/policy.js";
import { inlineStyleOf, renderPage, renderSearch, renderStatus } from "./views/render.js";
import { readerWords } from "./views/words.js";
import type { Visit } from "./visit.js";

/** A page of the site as one visitor reaches it: where it is, its space at the current revision, and its neighbours. */
export interface PageVisit {
  location: Location;
  space: GetPublishedSpaceResponse;
  page: Page;
  /** Every page of the space in reading order (hidden ones included: they have URLs). */
  pages: Page[];
  /** The space's first page, read at its site-space's address itself. */
  first: Page | undefined;
}

/** The page `segments` lead to for this visitor (null when none: 404). */
export async function readPage(visit: Visit, data: ReaderData, segments: string[]): Promise<PageVisit | null> {
  const location = locate(visit.site, segments, visit.context, visit.base);
  if (!location) return null;
  const space = await data.space(location.siteSpace.spaceId);
  if (!space) return null;
  const page = findPage(space, location.pagePath);
  if (!page) return null;
  const pages = readingOrder(space.pages);
  return { location, space, page, pages, first: pages.find((candidate) => !candidate.hidden) ?? pages[0] };
}

/** Whether search engines are asked to leave the page out: every non-public site, and `noIndex` pages with their descendants. */
export function isNoIndex(visit: Visit, space: GetPublishedSpaceResponse, page: Page): boolean {
  return visit.site.visibility !== "public" || page.noIndex || ancestorsOf(space.pages, page).some((ancestor) => ancestor.noIndex);
}

/** The titles of a level's site-spaces for its switcher: their spaces' titles (their paths when unreadable). */
async function variantTitles(data: ReaderData, location: Location): Promise<Map<string, string>> {
  if (location.variants.length < 2) return new Map();
  const spaces = await Promise.all(location.variants.map((variant) => data.space(variant.spaceId).catch(() => null)));
  return new Map(location.variants.map((variant, index) => [variant.id, spaces[index]?.title || variant.path]));
}

/** The frame of every page of a site-space for one visitor: chrome, navigation, metadata. */
async function frameOf(visit: Visit, data: ReaderData, at: PageVisit, meta: ViewFrame["meta"], assetBase: string, scripts: SiteScripts): Promise<ViewFrame> {
  const { location, space, page, first } = at;
  const chrome = chromeOf(visit.site, location.siteSpace.customizationJson || visit.site.customizationJson, space.language);
  const levelPrefix = location.siteSpace.default
    ? location.prefix
    : location.prefix.slice(0, location.prefix.length - encodeURIComponent(location.siteSpace.path).length - 1);
  const titles = await variantTitles(data, location);
  return {
    chrome,
    meta,
    homeUrl: visit.base,
    searchUrl: location.prefix,
    assetBase,
    ...(visit.site.items.length > 0 ? { sections: sectionEntries(visit.site, visit.context, visit.base, location.section) } : {}),
    variants: location.variants.map((variant) => ({
      title: titles.get(variant.id) ?? variant.path,
      url: siteSpaceUrl(levelPrefix, variant, location.variants),
      active: variant.id === location.siteSpace.id,
    })),
    tree: pageTree(space.pages, location.prefix, page, first),
    language: space.language || "en",
    ...(scripts.urls.length > 0 ? { scripts: scripts.urls } : {}),
  };
}

/** The entity tag of an answer rendered from `key` (which names everything it was rendered from). */
function etagOf(key: string): string {
  return `"${createHash("sha256").update(key).digest("base64url").slice(0, 27)}"`;
}

/** Tags the answer with `etag`; true (and a 304) when the visitor holds it already. */
function answeredNotModified(ctx: ParameterizedContext, etag: string): boolean {
  ctx.set("ETag", etag);
  if (
    !ctx
      .get("if-none-match")
      .split(/\s*,\s*/)
      .includes(etag)
  )
    return false;
  ctx.status = 304;
  return true;
}

/** Answers a kept rendering, or 304 when the visitor holds it already. */
export function sendRendered(ctx: ParameterizedContext, answer: RenderedAnswer): void {
  ctx.vary("Accept");
  if (answeredNotModified(ctx, answer.etag)) return;
  ctx.type = answer.type;
  ctx.body = answer.body;
  if (answer.policy) ctx.set("Content-Security-Policy", answer.policy);
}

/**
 * The cache key of what `at` renders to for this visitor (site version, revision and the space's
 * language included, so nothing kept goes stale; the other spaces' revisions its reusable contents
 * were read at, `otherSpaces`; for HTML, the site's scripts too).
 */
function renderKey(kind: string, visit: Visit, at: PageVisit, otherSpaces: string, scriptsKey = ""): string {
  return [
    kind,
    visit.site.siteId,
    visit.site.version,
    visit.origin,
    visit.base,
    visit.contextKey,
    at.space.revisionId,
    at.space.language,
    // Where the page's file is in the synced repository (its edit link), which can change without a revision.
    at.space.gitSource ? `${at.space.gitSource.url} ${at.space.gitSource.gitRef} ${at.space.gitSource.pagePaths[at.page.id] ?? ""}` : "",
    at.location.prefix,
    at.page.id,
    otherSpaces,
    scriptsKey,
  ].join("\n");
}

/**
 * A page as markdown for the visitor whose claims are `context`: its title, description and body
 * (what agents and `Accept: text/markdown` get), conditional blocks hidden from them left out.
 */
export async function pageMarkdown(
  data: ReaderData,
  at: { space: GetPublishedSpaceResponse; page: Page },
  context: ConditionContext,
  read?: PageBody,
): Promise<string> {
  const body = read ?? (await data.pageBody(at.space, at.page.id));
  const markdown = await markdownWithOperations(data, at.space, visitorMarkdown(body, context, at.space.spaceId));
  return `# ${at.page.title}\n\n${at.page.description ? `${at.page.description}\n\n` : ""}${markdown}`;
}

export async function serveMarkdown(ctx: ParameterizedContext, visit: Visit, data: ReaderData, at: PageVisit): Promise<void> {
  const read = await data.pageBody(at.space, at.page.id);
  const key = renderKey("md", visit, at, read.otherSpaces);
  let answer = data.rendered.get(key);
  if (!answer) {
    answer = { etag: etagOf(key), type: "text/markdown; charset=utf-8", body: Buffer.from(await pageMarkdown(data, at, visit.context, read)) };
    data.rendered.set(key, answer);
  }
  if (isNoIndex(visit, at.space, at.page)) ctx.set("X-Robots-Tag", "noindex");
  sendRendered(ctx, answer);
}

/** The page as HTML, rendered once per (site version, revision, page, visitor claims, site scripts) and kept. */
export async function serveHtml(ctx: ParameterizedContext, visit: Visit, data: ReaderData, at: PageVisit, assetBase: string): Promise<void> {
  const scripts = await data.siteScripts(visit.site.siteId);
  const read = await data.pageBody(at.space, at.page.id);
  const key = renderKey("html", visit, at, read.otherSpaces, scripts.key);
  let answer = data.rendered.get(key);
  if (!answer) {
    const rendered = await renderHtml(visit, data, at, read, assetBase, scripts);
    answer = { etag: etagOf(key), type: "text/html; charset=utf-8", body: Buffer.from(rendered.html), policy: rendered.policy };
    if (rendered.keep) data.rendered.set(key, answer);
    // Nor is the whole answer kept (server.ts: keepAnswer).
    else ctx.state.transient = true;
  }
  sendRendered(ctx, answer);
}

/** The policy a page's frame needs: its inline style, its integrations' scripts, the APIs its "Test it" forms call, and whether it draws diagrams. */
const policyOf = (frame: ViewFrame, scripts: SiteScripts, connect: readonly string[] = [], diagrams = false) =>
  pagePolicy({ inlineStyle: inlineStyleOf(frame), scripts: scripts.urls, integrationPolicies: scripts.policies, connect, diagrams });

/** `keep`: false when an OpenAPI operation of the page could not be found yet (its spec may still be processing). */
async function renderHtml(
  visit: Visit,
  data: ReaderData,
  at: PageVisit,
  read: PageBody,
  assetBase: string,
  scripts: SiteScripts,
): Promise<{ html: string; policy: string; keep: boolean }> {
  const { location, space, page, pages, first } = at;
  const byId = new Map(pages.map((candidate) => [candidate.id, candidate]));
  const linkTo = (pageId: string) => {
    const target = byId.get(pageId);
    return target ? urlOfPage(location.prefix, target, first) : null;
  };
  // Parsed once, as this visitor sees them (conditional blocks decided): the OpenAPI lookup, the heading levels and the rendering each read them.
  const { document, included } = visitorDocuments(read, visit.context);
  const openApi = await pageOpenApi(data, space, [document, ...included.values()]);
  // The specs the page's schemas and webhooks blocks name, each read once.
  const pointerKeys = [...new Set(openApiPointerBlocks([document, ...included.values()]).map(pointerSpecKey))].filter(
    (key): key is string => key !== undefined,
  );
  const pointerSpecs = new Map(await Promise.all(pointerKeys.map(async (key) => [key, await data.openApiSpec(space, key)] as const)));
  const resolveRef = (ref: ContentRef): string | null => {
    if (ref.kind === "page") return linkTo(ref.page);
    if (ref.kind === "file") return fileUrl(location.prefix, ref.file);
    if (ref.kind === "anchor") {
      if (!ref.page) return `#${ref.anchor}`;
      const url = linkTo(ref.page);
      return url ? `${url}#${ref.anchor}` : null;
    }
    return null;
  };
  const words = readerWords(space.language);
  const body = documentToHtml(document, {
    resolveRef,
    words: words.body,
    renderOpenApiBlock: (block) => {
      if (!OPENAPI_POINTER_TYPES.has(block.type)) return openApiBlockHtml(block, { specOf: openApi.specOf, resolveRef, words: words.openApi });
      const key = pointerSpecKey(block);
      return openApiPointerHtml(block, key === undefined ? null : pointerSpecs.get(key), words.openApi);
    },
    titleOf: (ref) => {
      const pageId = ref.kind === "page" || ref.kind === "anchor" ? ref.page : undefined;
      return pageId ? (byId.get(pageId)?.title ?? null) : null;
    },
    // Conditional blocks are decided above already; any left is decided the same way.
    showIf: (expression) => evaluateCondition(expression, visit.context),
    onUnknownBlock: (type) => data.unknownBlock(type),
    // Another space's (of the organization) as content read it; another organization's was left out: nothing.
    reusableContent: (ref) => included.get(includeKey(ref.space === undefined || ref.space === space.spaceId ? "" : ref.space, ref.reusableContent)) ?? null,
  });
  const visible = pages.filter((candidate) => !candidate.hidden);
  const index = visible.findIndex((candidate) => candidate.id === page.id);
  const link = (target: Page | undefined) => (target ? { title: target.title, url: urlOfPage(location.prefix, target, first) } : undefined);
  const pageUrl = urlOfPage(location.prefix, page, first);
  const markdownUrl = `${visit.origin}${pageUrl === location.prefix ? `${location.prefix}${page.path}` : pageUrl}.md`;
  const customizationJson = location.siteSpace.customizationJson || visit.site.customizationJson;
  const chrome = chromeOf(visit.site, customizationJson, space.language);
  const chromeTitle = chrome.title;
  const image = chrome.socialImage ?? `${visit.origin}${cardPath(location.prefix, page, cardContent(visit, customizationJson, space.language, page))}`;
  const framed = await frameOf(
    visit,
    data,
    at,
    {
      title: `${page.title} · ${chromeTitle}`,
      image,
      ...(page.description ? { description: page.description } : {}),
      canonicalUrl: `${visit.origin}${pageUrl}`,
      noindex: isNoIndex(visit, space, page),
      siteName: chromeTitle,
      markdownUrl,
    },
    assetBase,
    scripts,
  );
  const frame = openApi.present ? { ...framed, scripts: [...(framed.scripts ?? []), `${framed.assetBase ?? ""}${openApiAssets.script.path}`] } : framed;
  const edit = offersEditLink(customizationJson) ? editLinkOf(space.gitSource, page.id) : undefined;
  const previous = index > 0 ? link(visible[index - 1]) : undefined;
  const next = index >= 0 && index < visible.length - 1 ? link(visible[index + 1]) : undefined;
  const html = renderPage({
    ...frame,
    page: {
      title: page.title,
      ...(page.emoji ? { emoji: emojiOf(page.emoji) } : {}),
      ...(page.description ? { description: page.description } : {}),
      bodyHtml: body.html,
      toc: body.toc,
      breadcrumbs: ancestorsOf(space.pages, page)
        .filter((ancestor) => ancestor.type === page.type)
        .map((ancestor) => ({ title: ancestor.title, url: urlOfPage(location.prefix, ancestor, first) })),
      ...(previous ? { previous } : {}),
      ...(next ? { next } : {}),
      ...(space.revisionCreatedAt ? { lastUpdated: space.revisionCreatedAt } : {}),
      markdownUrl,
      ...(body.hasDiagram ? { hasDiagram: true } : {}),
      ...(edit ? { edit } : {}),
    },
  });
  return {
    html,
    policy: policyOf(frame, scripts, openApi.origins, body.hasDiagram),
    keep: !openApi.incomplete && [...pointerSpecs.values()].every((spec) => spec !== null),
  };
}

/** Where a file of the site-space's space is read: under its pages' base, past a segment no page path can hold. */
export const FILES_SEGMENT = "~files";
const fileUrl = (prefix: string, fileId: string) => `${prefix}${FILES_SEGMENT}/${encodeURIComponent(fileId)}`;

/** A file of the space behind `prefix`: `segments` end with `~files/<fileId>`. */
export async function serveFile(ctx: ParameterizedContext, visit: Visit, data: ReaderData, segments: string[]): Promise<boolean> {
  const location = locate(visit.site, segments.slice(0, -2), visit.context, visit.base);
  if (!location || location.pagePath !== "") return false;
  const space = await data.space(location.siteSpace.spaceId);
  const file = space ? await data.file(space, segments[segments.length - 1]!) : null;
  if (!file) return false;
  ctx.set(downloadHeaders(file.name, file.contentType));
  if (answeredNotModified(ctx, `"${file.digest}"`)) return true;
  ctx.type = file.contentType;
  ctx.body = file.content;
  return true;
}

/** A code point sequence such as 1f4d8 (GitBook's emoji field) as the emoji itself. */
function emojiOf(codes: string): string {
  const points = codes
    .split("-")
    .map((code) => Number.parseInt(code, 16))
    .filter((code) => Number.isInteger(code) && code >= 0 && code <= 0x10ffff);
  return String.fromCodePoint(...points);
}

/** Results of the search page and of search as you type. */
export const SEARCH_RESULTS = 20;
/** The longest query the reader passes on (content's own bound). */
export const MAX_QUERY_LENGTH = 512;

/**
 * Searches what this visitor sees of the site: the default site-space of each visible section (or
 * of the site), and the one the visitor is reading when it is another variant. Each hit's URL is
 * where the visitor reads it.
 */
export async function searchVisible(visit: Visit, data: ReaderData, query: string, limit: number, reading?: Location): Promise<ViewSearchHit[]> {
  const placed = placedSiteSpaces(visit.site, visit.context, visit.base).filter(
    (entry) =>
      (entry.primary && !(reading && reading.section?.id === entry.section?.id && reading.siteSpace.id !== entry.siteSpace.id)) ||
      entry.siteSpace.id === reading?.siteSpace.id,
  );
  const bySpace = new Map(placed.map((entry) => [entry.siteSpace.spaceId, entry]));
  if (bySpace.size === 0) return [];
  const found = await data.search([...bySpace.keys()], query, limit);
  // Each hit's page body is read (kept) to decide its conditional blocks: all at once, in the results' order.
  const hits = await Promise.all(
    found.map(async (result): Promise<ViewSearchHit | null> => {
      const entry = bySpace.get(result.spaceId);
      if (!entry) return null;
      const space = await data.space(entry.siteSpace.spaceId);
      if (!space) return null;
      const pages = readingOrder(space.pages);
      const page = pages.find((candidate) => candidate.id === result.id);
      if (!page || page.hidden) return null;
      const first = pages.find((candidate) => !candidate.hidden) ?? pages[0];
      // The index holds the page's conditional blocks too: what this visitor may not see is neither matched nor shown.
      const visibility = searchVisibility(await data.pageBody(space, page.id), visit.context);
      if (visibility && !visibility.matches(query, page.title, page.description)) return null;
      const best = result.sections[0];
      const section = best && (!visibility || visibility.excerptVisible(best.body)) ? best : undefined;
      const url = `${urlOfPage(entry.prefix, page, first)}${section?.anchor ? `#${section.anchor}` : ""}`;
      const context = [entry.section?.title, ...result.ancestorTitles].filter((part): part is string => Boolean(part)).join(" › ");
      return { title: page.title, url, excerpt: section?.body || result.description, ...(context ? { context } : {}) };
    }),
  );
  return hits.filter((hit): hit is ViewSearchHit => hit !== null);
}

/** The search page (`?q=`), or its results as JSON for search as you type (`format=json`). */
export async function serveSearch(ctx: ParameterizedContext, visit: Visit, data: ReaderData, at: PageVisit, assetBase: string): Promise<void> {
  const raw = typeof ctx.query.q === "string" ? ctx.query.q : "";
  const query = raw.trim().slice(0, MAX_QUERY_LENGTH);
  const hits = query ? await searchVisible(visit, data, query, SEARCH_RESULTS, at.location) : [];
  ctx.set("Cache-Control", "private, no-store");
  if (ctx.query.format === "json") {
    ctx.body = hits.map((hit) => ({ title: hit.title, url: hit.url, excerpt: hit.excerpt, ...(hit.context ? { context: hit.context } : {}) }));
    return;
  }
  const chromeTitle = chromeOf(visit.site, at.location.siteSpace.customizationJson || visit.site.customizationJson, at.space.language).title;
  const scripts = await data.siteScripts(visit.site.siteId);
  const frame = await frameOf(
    visit,
    data,
    at,
    {
      title: `${query ? `“${query}”` : readerWords(at.space.language || "en").search} · ${chromeTitle}`,
      canonicalUrl: `${visit.origin}${at.location.prefix}`,
      noindex: true,
      siteName: chromeTitle,
    },
    assetBase,
    scripts,
  );
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Content-Security-Policy", policyOf(frame, scripts));
  ctx.body = renderSearch({ ...frame, query, hits });
}

/** The page tree with nothing marked current (the not-found page is none of its pages). */
function withoutCurrent(items: ViewTreeItem[]): ViewTreeItem[] {
  return items.map(({ active: _active, expanded: _expanded, ...item }) => ({ ...item, children: withoutCurrent(item.children) }));
}

/**
 * The not-found page in the site's frame, for a visitor who may read the site: the header, search
 * and navigation of the site-space the address was under (else the site's first), its look, and its
 * language's words; null when this visitor sees no readable site-space (the bare page then).
 */
export async function renderNotFound(visit: Visit, data: ReaderData, segments: string[], assetBase: string): Promise<{ html: string; policy: string } | null> {
  const location = locate(visit.site, segments, visit.context, visit.base) ?? locate(visit.site, [], visit.context, visit.base);
  if (!location) return null;
  const space = await data.space(location.siteSpace.spaceId);
  if (!space) return null;
  const pages = readingOrder(space.pages);
  const first = pages.find((candidate) => !candidate.hidden) ?? pages[0];
  if (!first) return null;
  const scripts = await data.siteScripts(visit.site.siteId);
  const chromeTitle = chromeOf(visit.site, location.siteSpace.customizationJson || visit.site.customizationJson, space.language).title;
  const frame = await frameOf(
    visit,
    data,
    { location, space, page: first, pages, first },
    { title: chromeTitle, canonicalUrl: `${visit.origin}${location.prefix}`, noindex: true, siteName: chromeTitle },
    assetBase,
    scripts,
  );
  const { notFound } = readerWords(frame.language);
  const html = renderStatus({ status: 404, title: notFound.title, message: notFound.message, frame: { ...frame, tree: withoutCurrent(frame.tree) } });
  return { html, policy: policyOf(frame, scripts) };
}
