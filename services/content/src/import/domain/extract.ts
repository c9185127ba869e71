import type { Element, ElementContent, Root as HastRoot, RootContent } from "hast";
import { select, selectAll } from "hast-util-select";
import { toText } from "hast-util-to-text";
import rehypeParse from "rehype-parse";
import { unified } from "unified";

/** What an imported web page contributes: its title and the part of the document that is its content. */
export interface ExtractedPage {
  /** From the content's first `<h1>`, else `<title>`; empty when the page has neither. */
  title: string;
  /** The main content as a hast root (the `<h1>` used as the title removed). */
  content: HastRoot;
}

const htmlParser = unified().use(rehypeParse);

export function parseHtml(html: string): HastRoot {
  return htmlParser.parse(html);
}

/** The document's `<base href>` resolved against its URL, which relative links are relative to. */
export function documentBaseUrl(tree: HastRoot, pageUrl: URL): URL {
  const href = select("base[href]", tree)?.properties.href;
  if (typeof href === "string") {
    try {
      return new URL(href, pageUrl);
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  return pageUrl;
}

/** Absolute targets of every `<a href>` in the whole document (navigation included), in document order. */
export function collectLinks(tree: HastRoot, pageUrl: URL): URL[] {
  const base = documentBaseUrl(tree, pageUrl);
  const links: URL[] = [];
  for (const anchor of selectAll("a[href]", tree)) {
    const href = anchor.properties.href;
    if (typeof href !== "string") continue;
    try {
      links.push(new URL(href, base));
    } catch {
      // Unparsable hrefs lead nowhere.
    }
  }
  return links;
}

/** Never content, wherever they appear. */
const NEVER_CONTENT = new Set(["script", "style", "noscript", "template", "nav", "aside", "form", "button", "iframe", "svg"]);
/** Page chrome: dropped when the whole body stands in for a missing main element. */
const PAGE_CHROME = new Set(["header", "footer"]);

function withoutElements(nodes: readonly (RootContent | ElementContent)[], drop: ReadonlySet<string>): ElementContent[] {
  const kept: ElementContent[] = [];
  for (const node of nodes) {
    if (node.type === "doctype") continue;
    if (node.type === "element") {
      if (drop.has(node.tagName)) continue;
      kept.push({ ...node, children: withoutElements(node.children, drop) });
    } else {
      kept.push(node);
    }
  }
  return kept;
}

function removeElement(nodes: ElementContent[], target: Element): boolean {
  const index = nodes.indexOf(target);
  if (index >= 0) {
    nodes.splice(index, 1);
    return true;
  }
  return nodes.some((node) => node.type === "element" && removeElement(node.children, target));
}

function normalizeTitle(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/**
 * The page's main content: the first `main`, `article` or `[role=main]` element, else the body
 * without navigation, header, footer and asides. Inside a main element headers stay (an article's
 * header often holds its `<h1>`); scripts, styles, navigation and asides never count as content.
 */
export function extractMainContent(tree: HastRoot): ExtractedPage {
  const main = select("main", tree) ?? select("article", tree) ?? select("[role=main]", tree);
  const root = main ?? select("body", tree) ?? tree;
  const drop = main ? NEVER_CONTENT : new Set([...NEVER_CONTENT, ...PAGE_CHROME]);
  const content: HastRoot = { type: "root", children: withoutElements(root.children, drop) };

  const heading = select("h1", content);
  let title = heading ? normalizeTitle(toText(heading)) : "";
  if (heading && title) {
    removeElement(content.children as ElementContent[], heading);
  } else {
    const titleElement = select("head > title", tree) ?? select("title", tree);
    title = titleElement ? normalizeTitle(toText(titleElement)) : "";
  }
  return { title, content };
}
