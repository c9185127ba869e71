import GithubSlugger from "github-slugger";
import type * as Mdast from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { mathFromMarkdown } from "mdast-util-math";
import { toMarkdown } from "mdast-util-to-markdown";
import { toString } from "mdast-util-to-string";
import remarkGfm from "remark-gfm";
import { math } from "micromark-extension-math";
import remarkParse from "remark-parse";
import { type Processor, unified } from "unified";
import { ALLOWS, type Container } from "./containers.js";
import { MarkerReader, type Part } from "./markers.js";

/**
 * Markdown (the source of every page body) → GitBook's JSON document (`format=document`).
 * The markdown is parsed by remark (CommonMark + GFM) into mdast; this file is the one mapping
 * from mdast node types to document blocks, inlines and marked text leaves.
 *
 * GitBook restricts what each container may hold (a quote holds no code block, a list item no
 * image block...). Where markdown nests something the document model forbids, the node is
 * degraded to the nearest allowed form (e.g. a code block inside a quote becomes a paragraph
 * with code-marked text) so the document always validates against the published schema.
 *
 * GitBook's own markdown for tabs, hints, steppers, cards, files, expandables, embeds and block
 * math (`{% tabs %}`, `{% hint style="…" %}`, `{% stepper %}`, `{% content-ref url="…" %}`,
 * `{% file src="…" %}`, `<details>`, `{% embed url="…" %}`, `$$ … $$`) and OpenAPI operations
 * (`{% openapi %}`, `{% swagger %}`, `{% openapi-operation %}`) and conditional content (`{% if … %}`)
 * is recognised over the parsed tree (see markers.ts).
 * Inline math is GitBook's `$$…$$` inside a sentence, read by micromark's math extension (text
 * only: a paragraph holding nothing but one formula is block math, as GitBook writes it).
 *
 * Links to `/pages/<pageId>` and `/files/<fileId>` are references to a page or a file of the same
 * revision; `#anchor` links are anchors; everything else is a URL.
 */

export type MarkType = "bold" | "italic" | "code" | "strikethrough";
export interface DocumentMark {
  object: "mark";
  type: MarkType;
}
export interface DocumentLeaf {
  object: "leaf";
  text: string;
  marks: DocumentMark[];
}
export interface DocumentText {
  object: "text";
  leaves: DocumentLeaf[];
}
export type ContentRef =
  | { kind: "url"; url: string }
  | { kind: "page"; page: string }
  | { kind: "file"; file: string }
  | { kind: "anchor"; anchor: string; page?: string };
export type ImageRef = Extract<ContentRef, { kind: "url" } | { kind: "file" }>;
export interface DocumentInlineLink {
  object: "inline";
  type: "link";
  isVoid: false;
  data: { ref: ContentRef };
  nodes: (DocumentText | DocumentInlineImage)[];
}
export interface DocumentInlineImage {
  object: "inline";
  type: "inline-image";
  isVoid: true;
  data: { ref: ImageRef; alt?: string; caption?: string };
}
/** GitBook's inline formula (TeX), written `$$…$$` inside text. */
export interface DocumentInlineMath {
  object: "inline";
  type: "inline-math";
  isVoid: true;
  data: { formula: string };
}
export type DocumentInline = DocumentInlineLink | DocumentInlineImage | DocumentInlineMath;
export type InlineContent = DocumentText | DocumentInline;

export interface DocumentBlock {
  object: "block";
  type: string;
  data: Record<string, unknown>;
  isVoid?: boolean;
  nodes?: (DocumentBlock | InlineContent)[];
  fragments?: DocumentFragment[];
}
export interface DocumentFragment {
  object: "fragment";
  fragment: string;
  /** The fragment's role where its block defines one (an expandable's `expandable-title`, `expandable-body`). */
  type?: string;
  nodes: DocumentBlock[];
}
export interface JsonDocument {
  object: "document";
  data: Record<string, never>;
  nodes: DocumentBlock[];
}

const HEADING_ID = /^[-a-z0-9.+_]+$/;
const PAGE_LINK = /^\/pages\/([A-Za-z0-9_-]{1,64})(?:#(.+))?$/;
const FILE_LINK = /^\/files\/([A-Za-z0-9_-]{1,64})$/;
/** What `{% include "…" %}` names: a reusable content by its file in Git Sync's folder, `.gitbook/includes/<id>.md`. */
export const INCLUDE_PATH = /(?:^|\/)\.gitbook\/includes\/([A-Za-z0-9_-]{1,64})\.md$/;
/** GitHub's alert syntax (`> [!NOTE]`) is the markdown spelling of a hint. */
const ALERT = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\r?\n)?/i;
const ALERT_STYLE: Record<string, "info" | "success" | "warning" | "danger"> = {
  NOTE: "info",
  TIP: "success",
  IMPORTANT: "info",
  WARNING: "warning",
  CAUTION: "danger",
};

/** GitBook's inline math, `$$…$$` in text (a single `$` is text: prices read as prices); no `$$` block construct (block math is a paragraph, markers.ts). */
function inlineMath(this: Processor): void {
  const data = this.data();
  (data.micromarkExtensions ??= []).push({ text: math({ singleDollarTextMath: false }).text });
  (data.fromMarkdownExtensions ??= []).push(mathFromMarkdown());
}

const markdownParser = unified().use(remarkParse).use(remarkGfm).use(inlineMath).freeze();
/** Markdown as read before inline math: the text a formula that is no math block stays. */
const plainParser = unified().use(remarkParse).use(remarkGfm).freeze();

/** Parses markdown (CommonMark + GFM) into mdast. */
export function parseMarkdown(markdown: string): Mdast.Root {
  // No transformers are configured: the parsed tree is final (runSync would only re-type it).
  const root = markdownParser.parse(markdown);
  // Line endings in an inline formula are spaces to TeX (and to a heading's slug), and markdown could not always write them back.
  const spaceLineEndings = (node: Mdast.Nodes) => {
    if (node.type === "inlineMath") node.value = node.value.replace(/\r?\n/g, " ");
    else if ("children" in node) for (const child of node.children) spaceLineEndings(child);
  };
  spaceLineEndings(root);
  return root;
}

/**
 * Whether markdown reads the text as one paragraph: a formula whose lines would start other blocks
 * on their own (a `=` line after a list item's lazy continuation lines) is no block of its own,
 * as `documentToMarkdown` could not write it back.
 */
function readsAsOneParagraph(markdown: string): boolean {
  const read = parseMarkdown(markdown).children;
  return read.length === 1 && read[0]!.type === "paragraph";
}

export function contentRefFor(url: string): ContentRef {
  const page = PAGE_LINK.exec(url);
  if (page) return page[2] ? { kind: "anchor", anchor: page[2], page: page[1]! } : { kind: "page", page: page[1]! };
  const file = FILE_LINK.exec(url);
  if (file) return { kind: "file", file: file[1]! };
  if (url.startsWith("#") && url.length > 1) return { kind: "anchor", anchor: url.slice(1) };
  return { kind: "url", url };
}

function imageRefFor(url: string): ImageRef {
  const file = FILE_LINK.exec(url);
  return file ? { kind: "file", file: file[1]! } : { kind: "url", url };
}

/** A paragraph holding only a link (what GitBook writes inside its OpenAPI tags). */
function isLoneLink(part: Part): boolean {
  if (part.kind !== "node" || part.node.type !== "paragraph") return false;
  const meaningful = part.node.children.filter((child) => !(child.type === "text" && child.value.trim() === ""));
  return meaningful.length === 1 && meaningful[0]!.type === "link";
}

const leaf = (text: string, marks: readonly DocumentMark[]): DocumentLeaf => ({ object: "leaf", text, marks: [...marks] });
const mark = (type: MarkType): DocumentMark => ({ object: "mark", type });
const plainText = (text: string, marks: readonly DocumentMark[] = []): DocumentText => ({ object: "text", leaves: [leaf(text, marks)] });

function sameMarks(a: readonly DocumentMark[], b: readonly DocumentMark[]): boolean {
  return a.length === b.length && a.every((m, index) => m.type === b[index]!.type);
}

function withMark(marks: readonly DocumentMark[], type: MarkType): DocumentMark[] {
  return marks.some((m) => m.type === type) ? [...marks] : [...marks, mark(type)];
}

/** A column's width as written (`50%`, `320px`, `2`) as GitBook's `Length`: a number, or a value of a unit. */
function columnWidth(written: string): number | { unit: string; value: number } {
  const [, value, unit] = /^([\d.]+)(.*)$/.exec(written)!;
  return unit === "" ? Number(value) : { unit: unit!, value: Number(value) };
}

/** An update's date as GitBook's timestamp: a day is its midnight UTC. */
function updateDate(written: string): string {
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(written) ? `${written}T00:00:00.000Z` : written).toISOString();
}

class Converter {
  private readonly definitions = new Map<string, Mdast.Definition>();
  private readonly headingSlugs = new GithubSlugger();
  private fragmentCount = 0;
  private readonly markers: MarkerReader;

  constructor(root: Mdast.Root, source: string | undefined) {
    this.markers = new MarkerReader(source);
    const collect = (node: Mdast.Nodes) => {
      if (node.type === "definition") this.definitions.set(node.identifier.toLowerCase(), node);
      if ("children" in node) for (const child of node.children) collect(child);
    };
    collect(root);
  }

  document(root: Mdast.Root): JsonDocument {
    return { object: "document", data: {}, nodes: this.blocks(root.children, "document") };
  }

  // ── blocks ────────────────────────────────────────────────────────────────────────────────

  private blocks(nodes: readonly Mdast.RootContent[], container: Container): DocumentBlock[] {
    return this.parts(this.markers.parts(nodes), container);
  }

  private parts(parts: readonly Part[], container: Container): DocumentBlock[] {
    return parts.flatMap((part) => this.part(part, container));
  }

  /** Blocks, or one empty paragraph (containers GitBook's editor never leaves empty). */
  private nonEmptyBlocks(blocks: DocumentBlock[]): DocumentBlock[] {
    return blocks.length > 0 ? blocks : [this.paragraph([])];
  }

  /** A title as a bold paragraph, as markdown reads the paragraph back (a URL in it a link, as in any text). */
  private titleParagraph(title: string): DocumentBlock[] {
    if (title === "") return [];
    const written = toMarkdown(
      { type: "paragraph", children: [{ type: "strong", children: [{ type: "text", value: title }] }] },
      { extensions: [gfmToMarkdown()] },
    );
    const [read] = parseMarkdown(written).children;
    return [this.paragraph(read?.type === "paragraph" ? this.inlines(read.children, []) : [plainText(title, [mark("bold")])])];
  }

  /**
   * GitBook's blocks where the container admits them; elsewhere tabs and expandables become their
   * titles (bold paragraphs) followed by their content, a stepper or a hint its content, and an
   * embed, a card or a file a link.
   */
  private part(part: Part, container: Container): DocumentBlock[] {
    const allows = ALLOWS[container];
    const title = (text: string) => this.titleParagraph(text);
    switch (part.kind) {
      case "node":
        return this.block(part.node, container);
      case "tabs":
        if (!allows.tabs) return part.tabs.flatMap((tab) => [...title(tab.title), ...this.parts(tab.parts, container)]);
        return [
          {
            object: "block",
            type: "tabs",
            data: {},
            nodes: part.tabs.map((tab) => ({
              object: "block",
              type: "tabs-item",
              data: { title: tab.title },
              nodes: this.nonEmptyBlocks(this.parts(tab.parts, "tabs-item")),
            })),
          },
        ];
      case "hint":
        // Where no hint is allowed, its content stands in its place (as a `> [!NOTE]` quote's does where no quote is).
        if (!allows.hint) return this.parts(part.parts, container);
        return [{ object: "block", type: "hint", data: { style: part.style }, nodes: this.nonEmptyBlocks(this.parts(part.parts, "hint")) }];
      case "expandable":
        if (!allows.expandable) return [...title(part.title), ...this.parts(part.parts, container)];
        return [
          {
            object: "block",
            type: "expandable",
            isVoid: true,
            data: part.open ? { defaultExpanded: true } : {},
            fragments: [
              { object: "fragment", fragment: "expandable-title", type: "expandable-title", nodes: [this.paragraph([plainText(part.title)])] },
              { object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: this.nonEmptyBlocks(this.parts(part.parts, "expandable")) },
            ],
          },
        ];
      case "embed":
        if (!allows.embed) return [this.paragraph([this.link(part.url, [], [])])];
        return [{ object: "block", type: "embed", isVoid: true, data: { url: part.url } }];
      case "stepper":
        if (!allows.stepper) return part.steps.flatMap((step) => this.parts(step, container));
        return [
          {
            object: "block",
            type: "stepper",
            data: {},
            nodes: part.steps.map((step) => ({
              object: "block",
              type: "stepper-step",
              data: {},
              nodes: this.nonEmptyBlocks(this.parts(step, "stepper-step")),
            })),
          },
        ];
      case "content-ref":
        if (!allows.contentRef) return [this.paragraph([this.link(part.url, [], [])])];
        return [{ object: "block", type: "content-ref", isVoid: true, data: { ref: contentRefFor(part.url) } }];
      case "openapi":
        return this.openapi(part, container);
      case "openapi-schemas":
      case "openapi-webhook":
        return this.openapiPointer(part, container);
      case "if":
        // Its blocks are top-level blocks. Where GitBook allows no condition (below the top level), they stand in its place.
        if (!allows.conditional) return this.parts(part.parts, container);
        return [{ object: "block", type: "if", data: { expression: part.expression }, nodes: this.nonEmptyBlocks(this.parts(part.parts, "document")) }];
      case "columns":
        // Below the top level, where GitBook allows no columns, their blocks stand in their place, one column after another.
        if (!allows.columns) return part.columns.flatMap((column) => this.parts(column.parts, container));
        return [
          {
            object: "block",
            type: "columns",
            isVoid: false,
            data: {},
            nodes: part.columns.map((column) => ({
              object: "block",
              type: "column",
              data: column.width === undefined ? {} : { width: columnWidth(column.width) },
              nodes: this.nonEmptyBlocks(this.parts(column.parts, "column")),
            })),
          },
        ];
      case "updates":
        // Below the top level, each update is its day (a bold paragraph) followed by its blocks.
        if (!allows.updates) return part.updates.flatMap((update) => [...title(update.date.slice(0, 10)), ...this.parts(update.parts, container)]);
        return [
          {
            object: "block",
            type: "updates",
            data: { format: part.format },
            nodes: part.updates.map((update) => ({
              object: "block",
              type: "update",
              data: {
                date: updateDate(update.date),
                ...(update.tags.length > 0 ? { tags: update.tags.map((tag) => ({ kind: "tag", tag })) } : {}),
              },
              nodes: this.nonEmptyBlocks(this.parts(update.parts, "update")),
            })),
          },
        ];
      case "file": {
        // GitBook's file block holds a file of the space: a source that names none is a link.
        const file = FILE_LINK.exec(part.src);
        if (!allows.file || !file) return [this.paragraph([this.link(part.src, [], [])])];
        return [{ object: "block", type: "file", isVoid: true, data: { ref: { kind: "file", file: file[1]! } } }];
      }
      case "include": {
        // Anything else it names (a file outside the folder, a place it may not be) stays the text it was.
        const included = INCLUDE_PATH.exec(part.target);
        if (!allows.reusableContent || !included || (part.space !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(part.space))) {
          return [this.paragraph([plainText(`{% include "${part.target}"${part.space !== undefined ? ` space="${part.space}"` : ""} %}`)])];
        }
        const ref = { kind: "reusable-content", reusableContent: included[1]!, ...(part.space !== undefined ? { space: part.space } : {}) };
        return [{ object: "block", type: "reusable-content", isVoid: true, data: { ref } }];
      }
    }
  }

  /**
   * An OpenAPI operation: GitBook's `swagger` block for a spec named by `src` (a URL or a file; the
   * older `{% swagger %}` spelling kept as `data.tag`, Imprint's own, so it is written back as read),
   * its `openapi-operation` block for a stored spec's slug. What GitBook writes inside (a link to the
   * spec) only repeats the source; anything else inside (the older swagger block's description and
   * parameters) is kept, after the block, as the blocks it reads as. Below the top level, where
   * GitBook allows neither block, the operation is a paragraph: its method and path (a link to `src`).
   */
  private openapi(part: Extract<Part, { kind: "openapi" }>, container: Container): DocumentBlock[] {
    const inner = this.parts(
      part.parts.filter((inner) => !isLoneLink(inner)),
      container,
    );
    const label = `${part.method.toUpperCase()} ${part.path}`;
    if (!ALLOWS[container].openapi) {
      const text = part.tag === "openapi-operation" ? plainText(label, [mark("code")]) : this.link(part.source, [{ type: "inlineCode", value: label }], []);
      return [this.paragraph([text]), ...inner];
    }
    const operation = { method: part.method, path: part.path };
    const block: DocumentBlock =
      part.tag === "openapi-operation"
        ? { object: "block", type: "openapi-operation", isVoid: true, data: { ref: { kind: "openapi", spec: part.source }, ...operation } }
        : {
            object: "block",
            type: "swagger",
            isVoid: true,
            data: { ref: imageRefFor(part.source), ...operation, ...(part.tag === "swagger" ? { tag: "swagger" } : {}) },
          };
    return [block, ...inner];
  }

  /**
   * GitBook's blocks for a stored spec's schemas (`openapi-schemas`: their names, `grouped` when
   * written) and webhooks (`openapi-webhook`: its name and method), read as the operation block is:
   * the link GitBook writes inside is not kept, anything else inside follows the block; below the top
   * level, a paragraph with the schemas' names (the webhook's method and name) as code.
   */
  private openapiPointer(part: Extract<Part, { kind: "openapi-schemas" | "openapi-webhook" }>, container: Container): DocumentBlock[] {
    const inner = this.parts(
      part.parts.filter((inner) => !isLoneLink(inner)),
      container,
    );
    const ref = { kind: "openapi", spec: part.spec };
    const block: DocumentBlock =
      part.kind === "openapi-schemas"
        ? {
            object: "block",
            type: part.kind,
            isVoid: true,
            data: { ref, schemas: part.schemas, ...(part.grouped === undefined ? {} : { grouped: part.grouped }) },
          }
        : { object: "block", type: part.kind, isVoid: true, data: { ref, name: part.name, method: part.method } };
    if (!ALLOWS[container].openapi) {
      const label = part.kind === "openapi-schemas" ? part.schemas.join(", ") : `${part.method.toUpperCase()} ${part.name}`;
      return [this.paragraph([plainText(label, [mark("code")])]), ...inner];
    }
    return [block, ...inner];
  }

  private block(node: Mdast.RootContent, container: Container): DocumentBlock[] {
    const allows = ALLOWS[container];
    switch (node.type) {
      case "paragraph": {
        const formula = allows.math ? this.markers.formulaOf(node) : undefined;
        if (formula !== undefined && readsAsOneParagraph(`$$\n${formula}\n$$`)) return [{ object: "block", type: "math", isVoid: true, data: { formula } }];
        return [this.paragraphOrImages(this.markers.isLoneFormula(node) ? this.formulaAsText(node) : node, allows.images)];
      }
      case "heading":
        return [this.heading(node)];
      case "thematicBreak":
        return [{ object: "block", type: "divider", isVoid: true, data: {} }];
      case "list":
        return [this.list(node)];
      case "code":
        // A blank code block where code is not allowed leaves nothing (an empty paragraph writes back as nothing).
        return allows.code ? [this.code(node)] : node.value.trim() === "" ? [] : [this.codeAsParagraph(node)];
      case "blockquote":
        return this.blockquote(node, container);
      case "table":
        return allows.table ? [this.table(node)] : this.tableAsParagraphs(node);
      case "html":
        return node.value.trim() === "" ? [] : [this.paragraph([plainText(node.value)])];
      case "footnoteDefinition":
        return this.blocks(node.children, container);
      case "definition":
        return [];
      default:
        // Other block types (yaml, math...) are not produced by this parser's configuration;
        // their text is kept rather than dropped.
        return "value" in node && typeof node.value === "string" && node.value.trim() !== "" ? [this.paragraph([plainText(node.value)])] : [];
    }
  }

  /** A paragraph of one `$$…$$` that is no math block (none allowed here): the text it was, as markdown without math reads it. */
  private formulaAsText(node: Mdast.Paragraph): Mdast.Paragraph {
    const source = this.markers.sourceOf(node);
    const [read] = source === undefined ? [] : plainParser.parse(source).children;
    if (read?.type === "paragraph") return read;
    const [formula] = node.children;
    return { type: "paragraph", children: [{ type: "text", value: source ?? `$$${formula?.type === "inlineMath" ? formula.value : ""}$$` }] };
  }

  private paragraph(nodes: InlineContent[]): DocumentBlock {
    return { object: "block", type: "paragraph", data: {}, nodes: nodes.length > 0 ? nodes : [plainText("")] };
  }

  /** A paragraph holding only images is an image block where the container admits one. */
  private paragraphOrImages(node: Mdast.Paragraph, imagesAllowed: boolean): DocumentBlock {
    const meaningful = node.children.filter((child) => !(child.type === "text" && child.value.trim() === ""));
    const images = meaningful.filter((child): child is Mdast.Image => child.type === "image");
    if (imagesAllowed && images.length > 0 && images.length === meaningful.length) {
      return {
        object: "block",
        type: "images",
        isVoid: false,
        data: {},
        nodes: images.map((image) => ({
          object: "block",
          type: "image",
          isVoid: true,
          data: { ref: imageRefFor(image.url), ...(image.alt ? { alt: image.alt } : {}) },
          fragments: [],
        })),
      };
    }
    return this.paragraph(this.inlines(node.children, []));
  }

  private heading(node: Mdast.Heading): DocumentBlock {
    const level = Math.min(Math.max(node.depth, 1), 3);
    const id = this.headingSlugs.slug(toString(node));
    return {
      object: "block",
      type: `heading-${level}`,
      data: HEADING_ID.test(id) ? { id } : {},
      nodes: this.nonEmpty(this.inlines(node.children, [])),
    };
  }

  private list(node: Mdast.List): DocumentBlock {
    const isTasks = !node.ordered && node.children.some((item) => typeof item.checked === "boolean");
    const items: DocumentBlock[] = node.children.map((item) => ({
      object: "block",
      type: "list-item",
      data: isTasks ? { checked: item.checked === true } : {},
      nodes: this.nonEmptyBlocks(this.blocks(item.children, "list-item")),
    }));
    if (node.ordered) {
      const start = node.start ?? 1;
      return { object: "block", type: "list-ordered", data: start !== 1 ? { start } : {}, nodes: items };
    }
    return { object: "block", type: isTasks ? "list-tasks" : "list-unordered", data: {}, nodes: items };
  }

  private code(node: Mdast.Code): DocumentBlock {
    return {
      object: "block",
      type: "code",
      // A backtick in the info string (a `~~~` fence allows one) is no language, and no fence could write it back.
      data: node.lang && !node.lang.includes("`") ? { syntax: node.lang } : {},
      nodes: node.value.split("\n").map((line) => ({ object: "block", type: "code-line", data: {}, nodes: [plainText(line)] })),
    };
  }

  /** Code where code is not allowed: each line code-marked, on lines of one paragraph (blank lines dropped: they would end it). */
  private codeAsParagraph(node: Mdast.Code): DocumentBlock {
    const lines = node.value.split("\n").filter((line) => line.trim() !== "");
    return this.paragraph(
      this.inlines(
        lines.flatMap((line, index): Mdast.PhrasingContent[] => [
          ...(index > 0 ? [{ type: "text" as const, value: "\n" }] : []),
          { type: "inlineCode", value: line },
        ]),
        [],
      ),
    );
  }

  private blockquote(node: Mdast.Blockquote, container: Container): DocumentBlock[] {
    const allows = ALLOWS[container];
    const alert = this.alertOf(node);
    if (alert && allows.hint) {
      return [{ object: "block", type: "hint", data: { style: alert.style }, nodes: this.nonEmptyBlocks(this.blocks(alert.children, "hint")) }];
    }
    const inner = alert ? alert.children : node.children;
    if (!allows.quote) return this.blocks(inner, container);
    return [{ object: "block", type: "blockquote", data: {}, nodes: this.nonEmptyBlocks(this.blocks(inner, "quote")) }];
  }

  /** `> [!WARNING]` as the first line of a quote: its style and the quote's content without the marker. */
  private alertOf(node: Mdast.Blockquote): { style: string; children: Mdast.BlockContent[] } | undefined {
    const [first, ...rest] = node.children;
    if (first?.type !== "paragraph") return undefined;
    const [firstText, ...otherInlines] = first.children;
    if (firstText?.type !== "text" || this.markers.startsEscaped(firstText)) return undefined;
    const match = ALERT.exec(firstText.value);
    if (!match) return undefined;
    const remainder = firstText.value.slice(match[0].length);
    // The remainder has no position: it no longer starts where the text did.
    const inlines: Mdast.PhrasingContent[] = [...(remainder ? [{ type: "text" as const, value: remainder }] : []), ...otherInlines];
    // A soft break right after the marker belongs to the marker line.
    const firstInline = inlines[0];
    const brokenAfterMarker = !remainder && firstInline?.type === "break";
    if (brokenAfterMarker) inlines.shift();
    const paragraph: Mdast.Paragraph[] = inlines.length > 0 ? [{ type: "paragraph", children: inlines }] : [];
    // The rest of the paragraph starts on the marker's next line: its lines are the source's from there.
    if (paragraph[0] && (match[0].endsWith("\n") || brokenAfterMarker)) this.markers.continues(paragraph[0], first, 1);
    return { style: ALERT_STYLE[match[1]!.toUpperCase()]!, children: [...paragraph, ...(rest as Mdast.BlockContent[])] };
  }

  /**
   * GFM tables become GitBook's table block: one text column per markdown column, one record per
   * body row, each cell's rich text in a fragment the record points to.
   */
  private table(node: Mdast.Table): DocumentBlock {
    const [header, ...rows] = node.children;
    const columnCount = Math.max(...node.children.map((row) => row.children.length), 0);
    const columns = Array.from({ length: columnCount }, (_, index) => `c${index}`);
    const definition: Record<string, unknown> = {};
    columns.forEach((id, index) => {
      const align = node.align?.[index];
      definition[id] = {
        id,
        title: header?.children[index] ? toString(header.children[index]) : "",
        type: "text",
        textAlignment: align === "center" ? "center" : align === "right" ? "right" : "left",
      };
    });
    const fragments: DocumentFragment[] = [];
    const records: Record<string, unknown> = {};
    rows.forEach((row, rowIndex) => {
      const values: Record<string, string> = {};
      columns.forEach((columnId, columnIndex) => {
        const cell = row.children[columnIndex];
        const fragment = `fragment-${++this.fragmentCount}`;
        fragments.push({ object: "fragment", fragment, nodes: [this.paragraph(cell ? this.inlines(cell.children, []) : [])] });
        values[columnId] = fragment;
      });
      records[`row-${rowIndex + 1}`] = { orderIndex: String(rowIndex).padStart(6, "0"), values };
    });
    return {
      object: "block",
      type: "table",
      isVoid: true,
      data: { view: { type: "grid", columns, hideHeader: false }, records, definition },
      fragments,
    };
  }

  /** A table where tables are not allowed: a paragraph per row, its cells' content joined by ` | ` (empty rows dropped). */
  private tableAsParagraphs(node: Mdast.Table): DocumentBlock[] {
    return node.children.flatMap((row) => {
      const content: Mdast.PhrasingContent[] = row.children.flatMap((cell, index) => [
        ...(index > 0 ? [{ type: "text" as const, value: " | " }] : []),
        ...cell.children,
      ]);
      // Markdown trims a paragraph: so does the row's text (empty first or last cells).
      const [first] = content;
      const last = content[content.length - 1];
      if (first?.type === "text") content[0] = { type: "text", value: first.value.trimStart() };
      if (last?.type === "text") content[content.length - 1] = { type: "text", value: (content[content.length - 1] as Mdast.Text).value.trimEnd() };
      const inlines = this.inlines(content, []).filter((inline) => inline.object !== "text" || inline.leaves.some((item) => item.text !== ""));
      return inlines.length > 0 ? [this.paragraph(inlines)] : [];
    });
  }

  // ── inlines ───────────────────────────────────────────────────────────────────────────────

  private nonEmpty(nodes: InlineContent[]): InlineContent[] {
    return nodes.length > 0 ? nodes : [plainText("")];
  }

  /** Phrasing content → text nodes (runs of marked leaves) and inline nodes, in order. */
  private inlines(nodes: readonly Mdast.PhrasingContent[], marks: readonly DocumentMark[]): InlineContent[] {
    const out: InlineContent[] = [];
    const pushLeaf = (text: string, leafMarks: readonly DocumentMark[]) => {
      const last = out[out.length - 1];
      const lastLeaf = last?.object === "text" ? last.leaves[last.leaves.length - 1] : undefined;
      // Adjacent leaves with the same marks are one leaf (as GitBook's editor normalizes them).
      if (lastLeaf && sameMarks(lastLeaf.marks, leafMarks)) lastLeaf.text += text;
      else if (last?.object === "text") last.leaves.push(leaf(text, leafMarks));
      else out.push({ object: "text", leaves: [leaf(text, leafMarks)] });
    };
    const append = (items: InlineContent[]) => {
      for (const item of items) {
        if (item.object === "text") for (const l of item.leaves) pushLeaf(l.text, l.marks);
        else out.push(item);
      }
    };
    for (const node of nodes) {
      switch (node.type) {
        case "text":
          pushLeaf(node.value, marks);
          break;
        case "emphasis":
          append(this.inlines(node.children, withMark(marks, "italic")));
          break;
        case "strong":
          append(this.inlines(node.children, withMark(marks, "bold")));
          break;
        case "delete":
          append(this.inlines(node.children, withMark(marks, "strikethrough")));
          break;
        case "inlineCode":
          pushLeaf(node.value, withMark(marks, "code"));
          break;
        case "break":
          pushLeaf("\n", marks);
          break;
        case "html":
          pushLeaf(node.value, marks);
          break;
        case "link":
          out.push(this.link(node.url, node.children, marks));
          break;
        case "image":
          out.push(this.inlineImage(node.url, node.alt));
          break;
        case "inlineMath":
          out.push({ object: "inline", type: "inline-math", isVoid: true, data: { formula: node.value } });
          break;
        case "linkReference": {
          const target = this.definitions.get(node.identifier.toLowerCase());
          if (target) out.push(this.link(target.url, node.children, marks));
          else append([plainText(`[${toString(node)}]`, marks)]);
          break;
        }
        case "imageReference": {
          const target = this.definitions.get(node.identifier.toLowerCase());
          if (target) out.push(this.inlineImage(target.url, node.alt));
          else append([plainText(`![${node.alt ?? ""}]`, marks)]);
          break;
        }
        case "footnoteReference":
          pushLeaf(`[^${node.label ?? node.identifier}]`, marks);
          break;
        default:
          pushLeaf(toString(node), marks);
      }
    }
    return out;
  }

  private link(url: string, children: readonly Mdast.PhrasingContent[], marks: readonly DocumentMark[]): DocumentInlineLink {
    // A link holds text and inline images only (markdown cannot nest links); a formula in it is its text.
    const nodes = this.inlines(children.map(formulasAsText), marks).filter(
      (node): node is DocumentText | DocumentInlineImage => node.object === "text" || node.type === "inline-image",
    );
    return { object: "inline", type: "link", isVoid: false, data: { ref: contentRefFor(url) }, nodes: nodes.length > 0 ? nodes : [plainText(url, marks)] };
  }

  private inlineImage(url: string, alt: string | null | undefined): DocumentInlineImage {
    return { object: "inline", type: "inline-image", isVoid: true, data: { ref: imageRefFor(url), ...(alt ? { alt } : {}) } };
  }
}

/** Phrasing content with its inline formulas as their text (where the document holds no formula: in a link). */
function formulasAsText(node: Mdast.PhrasingContent): Mdast.PhrasingContent {
  if (node.type === "inlineMath") return { type: "text", value: node.value };
  return "children" in node ? { ...node, children: node.children.map(formulasAsText) } : node;
}

/**
 * Converts already parsed markdown into a document. With the markdown it was parsed from, GitBook's
 * tags and formulas are read as written; without it, from the parsed text (escapes and emphasis
 * in a tab title or a formula then read as markdown).
 */
export function mdastToDocument(root: Mdast.Root, markdown?: string): JsonDocument {
  return new Converter(root, markdown).document(root);
}

/** Markdown → GitBook JSON document. */
export function markdownToDocument(markdown: string): JsonDocument {
  return mdastToDocument(parseMarkdown(markdown), markdown);
}
