import { parseMarkdown } from "@imprint/document";
import { visit } from "unist-util-visit";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

/**
 * Markdown text as Git Sync files hold it: front matter, the title heading and link targets. Link
 * targets are rewritten in place (the rest of the text is kept byte for byte), so a page that did
 * not change reads back exactly as it was written.
 */

export type LinkKind = "link" | "image" | "definition" | "tag";

/** Destination of an inline link or image at the end of its source text: `](dest` or `](<dest>`. */
const INLINE_DESTINATION = /\]\(\s*(<[^>\n]*>|[^\s()<]*(?:\([^\s()]*\)[^\s()]*)*)/g;
const DEFINITION_DESTINATION = /^\s*\[[^\]]*\]:\s*(<[^>\n]*>|\S+)/;
/**
 * The target of GitBook's tags that point at a page or a file: `{% content-ref url="…" %}`,
 * `{% file src="…" %}`, and an OpenAPI block's spec (`{% openapi src="…" path="…" method="…" %}`,
 * `{% swagger src="…" … %}`), its first attribute, followed by its others; and the file of a
 * reusable content a page includes (`{% include "…" %}`).
 */
const TAG_TARGET =
  /\{%[ \t]*(?:(?:content-ref[ \t]+url|file[ \t]+src|(?:openapi|swagger)[ \t]+src)[ \t]*=[ \t]*|include[ \t]+)"([^"\n]*)"(?:[ \t]+[A-Za-z]+[ \t]*=[ \t]*"[^"\n]*")*[ \t]*%\}/g;

/** A tag's attribute value as written (`&quot;` and `&amp;` encoded, as `@imprint/document` writes them) and read. */
const decodeAttribute = (value: string) => value.replace(/&(quot|amp);/g, (_, name: string) => (name === "quot" ? '"' : "&"));
const encodeAttribute = (value: string) => value.replace(/&(?=(?:quot|amp);)/g, "&amp;").replace(/"/g, "&quot;");

function formatDestination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>\n]/g, encodeURIComponent)}>` : url;
}

/**
 * A link target found in markdown text: what it points at (`url`, decoded) and where its text is
 * (`start`…`end` of the destination or the tag's attribute value, as written).
 */
export interface LinkSite {
  kind: LinkKind;
  url: string;
  start: number;
  end: number;
}

/**
 * The targets of links, images, link definitions and GitBook's card and file tags
 * (`{% content-ref url="…" %}`, `{% file src="…" %}`, an OpenAPI block's `src`, an include), outside
 * code, in text order. Finding them parses the markdown, the costly part of a rewrite: a body's
 * sites can be kept (they depend on its text only) and applied to it again with other targets.
 */
export function findLinkSites(markdown: string): LinkSite[] {
  if (!/\]\(|\]:|\{%/.test(markdown)) return [];
  const tree = parseMarkdown(markdown);
  const sites: LinkSite[] = [];
  visit(tree, (node) => {
    // Tags are paragraph text or HTML to markdown (never code): their source is searched for them.
    if (node.type === "paragraph" || node.type === "html") {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (start === undefined || end === undefined) return;
      for (const match of markdown.slice(start, end).matchAll(TAG_TARGET)) {
        const value = match[1]!;
        const at = start + match.index + match[0].indexOf(`"${value}"`) + 1;
        sites.push({ kind: "tag", url: decodeAttribute(value), start: at, end: at + value.length });
      }
    }
    if (node.type !== "link" && node.type !== "image" && node.type !== "definition") return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const source = markdown.slice(start, end);
    if (node.type === "definition") {
      const match = DEFINITION_DESTINATION.exec(source);
      if (!match?.[1]) return;
      const at = start + match[0].length - match[1].length;
      sites.push({ kind: node.type, url: node.url, start: at, end: at + match[1].length });
      return;
    }
    let last: RegExpExecArray | undefined;
    for (const match of source.matchAll(INLINE_DESTINATION)) last = match;
    if (!last?.[1] && last?.[1] !== "") return;
    const at = start + last.index + last[0].length - last[1].length;
    sites.push({ kind: node.type, url: node.url, start: at, end: at + last[1].length });
  });
  return sites;
}

/**
 * The link sites of a markdown text (findLinkSites), possibly kept under `key`, which names that
 * very text (a body's id, a Git blob's oid): imports and exports of large spaces spend most of
 * their time finding them.
 */
export type LinkSitesOf = (key: string | null | undefined, markdown: string) => readonly LinkSite[];

/**
 * Rewrites the targets at `sites` (found in this very `markdown` by findLinkSites): `rewrite`
 * answers the new target, or undefined to keep it. Everything else of the text stays as it is.
 */
export function rewriteLinkSites(markdown: string, sites: readonly LinkSite[], rewrite: (url: string, kind: LinkKind) => string | undefined): string {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const site of sites) {
    const replacement = rewrite(site.url, site.kind);
    if (replacement === undefined || replacement === site.url) continue;
    edits.push({ start: site.start, end: site.end, text: site.kind === "tag" ? encodeAttribute(replacement) : formatDestination(replacement) });
  }
  if (edits.length === 0) return markdown;
  edits.sort((a, b) => b.start - a.start);
  let text = markdown;
  let bound = Number.POSITIVE_INFINITY;
  for (const edit of edits) {
    if (edit.end > bound) continue; // overlapping (never expected): keep the first one found from the end
    text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    bound = edit.start;
  }
  return text;
}

/**
 * Rewrites the targets of links, images, link definitions and GitBook's card and file tags
 * (`{% content-ref url="…" %}`, `{% file src="…" %}`, an OpenAPI block's `src`, outside code): `rewrite` answers the new
 * target, or undefined to keep it. Everything else of the text stays as it is.
 */
export function rewriteLinkTargets(markdown: string, rewrite: (url: string, kind: LinkKind) => string | undefined): string {
  return rewriteLinkSites(markdown, findLinkSites(markdown), rewrite);
}

/** The front matter GitBook writes and reads: description, icon, hidden. */
export interface FrontMatter {
  /** A reusable content's title (`.gitbook/includes/`); a page's is its `#` heading. */
  title?: string;
  description?: string;
  icon?: string;
  hidden?: boolean;
}

export interface PageFile {
  frontMatter: FrontMatter;
  /** The first-level heading the file starts with (after the front matter), if any. */
  title: string | undefined;
  /** The rest: the page's body, without leading blank lines. */
  body: string;
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const TITLE_LINE = /^#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*(?:\r?\n|$)/;

/** Splits a page file into front matter, title heading and body (invalid front matter is left in the body). */
export function readPageFile(text: string): PageFile {
  let rest = text.replace(/^\uFEFF/, "");
  const frontMatter: FrontMatter = {};
  const match = FRONT_MATTER.exec(rest);
  if (match) {
    let data: unknown;
    try {
      data = parseYaml(match[1] ?? "");
    } catch {
      data = undefined;
    }
    if (data === null || (typeof data === "object" && !Array.isArray(data))) {
      const fields = (data ?? {}) as Record<string, unknown>;
      if (typeof fields.title === "string") frontMatter.title = fields.title.trim();
      if (typeof fields.description === "string") frontMatter.description = fields.description.trim();
      if (typeof fields.icon === "string") frontMatter.icon = fields.icon.trim();
      if (typeof fields.hidden === "boolean") frontMatter.hidden = fields.hidden;
      rest = rest.slice(match[0].length);
    }
  }
  rest = rest.replace(/^(?:[ \t]*\r?\n)+/, "");
  let title: string | undefined;
  const heading = TITLE_LINE.exec(rest);
  if (heading?.[1]) {
    title = heading[1].trim();
    rest = rest.slice(heading[0].length).replace(/^(?:[ \t]*\r?\n)+/, "");
  }
  return { frontMatter, title, body: rest };
}

/** A page file as export writes it: front matter when there is any, the title heading, the body. */
export function writePageFile(page: { title: string; description: string; icon: string; hidden: boolean; body: string }): string {
  const fields: Record<string, unknown> = {};
  if (page.description) fields.description = page.description;
  if (page.icon) fields.icon = page.icon;
  if (page.hidden) fields.hidden = true;
  const front = Object.keys(fields).length > 0 ? `---\n${stringifyYaml(fields, { lineWidth: 0 })}---\n\n` : "";
  const body = page.body.trim();
  return `${front}# ${page.title.replace(/\r?\n/g, " ")}\n${body ? `\n${body}\n` : ""}`;
}

/** A reusable content's file as GitBook's Git Sync writes it to `.gitbook/includes/`: its title in front matter, then its body. */
export function writeIncludeFile(include: { title: string; body: string }): string {
  const body = include.body.trim();
  return `---\n${stringifyYaml({ title: include.title.replace(/\r?\n/g, " ") }, { lineWidth: 0 })}---\n${body ? `\n${body}\n` : ""}`;
}

/** Bodies compare without leading and trailing blank space (files end with one newline). */
export function sameBody(a: string, b: string): boolean {
  return a.trim() === b.trim();
}
