import GithubSlugger from "github-slugger";
import type { Root as MdastRoot } from "mdast";
import { visit } from "unist-util-visit";
import { documentBaseUrl } from "./extract.js";
import { newContentId, PAGE_LIMITS } from "../../revisions/index.js";
import { pageKey, pathSegments, type CrawledPage, type SiteScope } from "./crawl.js";

/** One crawled page with what extraction made of it. */
export interface ConvertedPage {
  crawled: CrawledPage;
  title: string;
  /** The page's content as markdown AST, link and image targets still as in the HTML. */
  content: MdastRoot;
}

/** A page to create: where it goes in the tree and under which identifier. */
export interface PlannedPage {
  /** Identifier given to the page at creation, so links can name it before it exists. */
  pageId: string;
  /** The planned parent's identifier, or null for the import's top level. */
  parentPageId: string | null;
  title: string;
  /** Unique among the imported siblings (not yet checked against pages already in the space). */
  slug: string;
  source: ConvertedPage;
}

/** Room left in a slug for the suffix that makes it unique ("-12"). */
const SLUG_BASE_LENGTH = PAGE_LIMITS.slug - 10;

/** A slug the editing API accepts: letters, digits, "-" and "_", bounded; "" for nothing usable. */
export function slugOf(text: string): string {
  return new GithubSlugger().slug(text).slice(0, SLUG_BASE_LENGTH).replace(/-+$/, "");
}

/** `setup.html` → "setup"; `set up` → "set-up". */
export function slugFromSegment(segment: string): string {
  return slugOf(segment.replace(/\.(html?|php|aspx?|jsp)$/i, ""));
}

function titleFor(page: ConvertedPage, segments: string[]): string {
  const fallback =
    segments
      .at(-1)
      ?.replace(/\.[a-z0-9]+$/i, "")
      .replace(/[-_]+/g, " ")
      .trim() || page.crawled.url.hostname;
  const title = page.title || fallback;
  return title.length > PAGE_LIMITS.title ? `${title.slice(0, PAGE_LIMITS.title - 1)}…` : title;
}

/**
 * The page tree from URL paths: a page nests under the nearest imported page whose path is a
 * prefix of its own (`/docs/a/b` under `/docs/a`; under `/docs` when `/docs/a` was not imported).
 * The start page and the pages with no such ancestor form the import's top level, the start page
 * first. Siblings keep the order in which the crawl discovered them. Slugs come from the last path
 * segment (extension dropped), unique among the imported siblings; the start page's slug comes from
 * its title. Identifiers are chosen here, so links between the pages can be written before any exists. Pages are returned parents first, siblings in order: the order to create them in.
 */
export function planPageTree(pages: readonly ConvertedPage[], scope: SiteScope): PlannedPage[] {
  const sorted = [...pages].sort((a, b) => a.crawled.order - b.crawled.order);
  const byPath = new Map<string, { pageId: string; page: ConvertedPage; segments: string[] }>();
  for (const page of sorted) {
    const segments = pathSegments(page.crawled.url, scope);
    const path = segments.join("/");
    // Two URLs with one path (which page keys already fold) would be one page; keep the first.
    if (!byPath.has(path)) byPath.set(path, { pageId: newContentId(), page, segments });
  }

  const children = new Map<string | null, { pageId: string; page: ConvertedPage; segments: string[] }[]>();
  for (const entry of byPath.values()) {
    let parent: string | null = null;
    for (let length = entry.segments.length - 1; length >= 1; length -= 1) {
      const ancestor = byPath.get(entry.segments.slice(0, length).join("/"));
      if (ancestor) {
        parent = ancestor.pageId;
        break;
      }
    }
    const siblings = children.get(parent) ?? [];
    siblings.push(entry);
    children.set(parent, siblings);
  }

  const planned: PlannedPage[] = [];
  const emit = (parentPageId: string | null) => {
    const slugger = new GithubSlugger();
    for (const entry of children.get(parentPageId) ?? []) {
      const title = titleFor(entry.page, entry.segments);
      const base = (entry.segments.length > 0 ? slugFromSegment(entry.segments.at(-1)!) : "") || slugOf(title) || "page";
      // Slugger.slug() suffixes repeats (-1, -2...), keeping sibling slugs unique.
      const slug = slugger.slug(base);
      planned.push({ pageId: entry.pageId, parentPageId, title, slug, source: entry.page });
      emit(entry.pageId);
    }
  };
  emit(null);
  return planned;
}

/** How imported markdown names other pages and files of the revision. */
export interface ReferenceFormat {
  /** Link target for a page of the revision (an anchor within it when given). */
  page(pageId: string, anchor: string): string;
  /** Image source for a file of the revision. */
  file(fileId: string): string;
}

/**
 * The revision store's internal reference form (services/document/src/document.ts): `/pages/<id>`
 * (`#anchor`) and `/files/<id>`, which the document conversion turns into page, anchor and file
 * references.
 */
export const REVISION_REFERENCES: ReferenceFormat = {
  page: (pageId, anchor) => `/pages/${pageId}${anchor ? `#${anchor}` : ""}`,
  file: (fileId) => `/files/${fileId}`,
};

/** Absolute URL of a reference found in a page, or undefined when it is not a fetchable URL. */
export function absoluteUrl(reference: string, base: URL): URL | undefined {
  try {
    const url = new URL(reference, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The base URL relative references of a crawled page resolve against. */
export function pageBaseUrl(page: CrawledPage): URL {
  return documentBaseUrl(page.tree, page.url);
}

/** Image sources of a page, absolute, in order of appearance. */
export function imageUrls(page: ConvertedPage): URL[] {
  const base = pageBaseUrl(page.crawled);
  const urls: URL[] = [];
  visit(page.content, "image", (node) => {
    const url = absoluteUrl(node.url, base);
    if (url) urls.push(url);
  });
  return urls;
}

/** Key for images: the URL without its fragment. */
export function imageKey(url: URL): string {
  const copy = new URL(url);
  copy.hash = "";
  return copy.toString();
}

/**
 * Rewrites the page's links and images in place: a link to an imported page becomes a page
 * reference, an image that was downloaded becomes a file reference, and every other relative
 * reference becomes absolute (it would otherwise point into the space).
 */
export function rewriteReferences(
  page: ConvertedPage,
  targets: { pageIdByKey: ReadonlyMap<string, string>; fileIdByImage: ReadonlyMap<string, string>; format: ReferenceFormat },
): void {
  const base = pageBaseUrl(page.crawled);
  visit(page.content, (node) => {
    if (node.type === "link") {
      if (node.url.startsWith("#")) return;
      const url = absoluteUrl(node.url, base);
      if (!url) return;
      const pageId = targets.pageIdByKey.get(pageKey(url));
      node.url = pageId ? targets.format.page(pageId, url.hash.replace(/^#/, "")) : url.toString();
    } else if (node.type === "image") {
      const url = absoluteUrl(node.url, base);
      if (!url) return;
      const fileId = targets.fileIdByImage.get(imageKey(url));
      node.url = fileId ? targets.format.file(fileId) : url.toString();
    }
  });
}
