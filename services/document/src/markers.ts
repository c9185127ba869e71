import type * as Mdast from "mdast";
import type { InlineMath } from "mdast-util-math";
import { toString } from "mdast-util-to-string";

/**
 * GitBook's Git Sync spelling of the blocks CommonMark has no construct for, recognised in parsed
 * mdast (remark reads `{% … %}` lines as paragraph text and `<details>` as HTML blocks):
 *
 * - tabs: `{% tabs %}`, then per tab `{% tab title="…" %}` … `{% endtab %}`, then `{% endtabs %}`;
 * - hint: `{% hint style="info|success|warning|danger" %}` … `{% endhint %}`;
 * - stepper: `{% stepper %}`, then per step `{% step %}` … `{% endstep %}`, then `{% endstepper %}`;
 * - card (content reference): `{% content-ref url="…" %}`, GitBook's link to it, `{% endcontent-ref %}`;
 * - file: `{% file src="…" %}`, optionally followed by a caption and `{% endfile %}`;
 * - reusable content: `{% include ".gitbook/includes/<id>.md" %}` (a line of its own, no end tag;
 *   Imprint adds `space="<id>"` for another space's);
 * - expandable: `<details>` (or `<details open>`), `<summary>title</summary>`, the body, `</details>`;
 * - embed: `{% embed url="…" %}`, optionally followed by a caption and `{% endembed %}`;
 * - OpenAPI operation: `{% openapi src="…" path="…" method="…" %}` … `{% endopenapi %}`, the older
 *   `{% swagger src="…" … %}` … `{% endswagger %}`, and `{% openapi-operation spec="<slug>" path="…"
 *   method="…" %}` … `{% endopenapi-operation %}` (a spec stored in the organization);
 * - OpenAPI schemas and webhooks of a stored spec: `{% openapi-schemas spec="<slug>" schemas="A,B" grouped="true" %}`
 *   … `{% endopenapi-schemas %}`, `{% openapi-webhook spec="<slug>" name="…" method="…" %}` … `{% endopenapi-webhook %}`;
 * - block math: a paragraph holding only `$$ … $$`;
 * - conditional content: `{% if <expression> %}` … `{% endif %}` (the expression as written, unquoted);
 * - columns: `{% columns %}`, then per column `{% column %}` (or `{% column width="50%" %}`) … `{% endcolumn %}`, then `{% endcolumns %}`;
 * - updates: `{% updates format="full" %}`, then per update `{% update date="2025-12-25" tags="a,b" %}` … `{% endupdate %}`, then `{% endupdates %}`.
 *
 * A sibling list (the children of the root, a list item, a quote…) is cut into tokens: whole nodes,
 * the lines of paragraphs (a marker line is one token), the pieces of HTML blocks. Openers and
 * closers are matched in one pass over a stack; a marker left unmatched (unbalanced, out of place,
 * or tabs holding anything outside a tab) stays the text it was, in its paragraph as before. Tags
 * and formulas are read from the markdown source at the lines the parser's positions give (so `\`,
 * `*` or `_` in a title or formula are kept as written, and an escaped `\{% tabs %}` is no tag); a
 * line the source cannot be matched to is no tag. Without the source, the parsed text is read.
 */

/** A sibling list with GitBook's blocks recognised; nodes are converted as any other mdast. */
export type Part =
  | { kind: "node"; node: Mdast.RootContent }
  | { kind: "tabs"; tabs: { title: string; parts: Part[] }[] }
  | { kind: "hint"; style: HintStyle; parts: Part[] }
  | { kind: "stepper"; steps: Part[][] }
  | { kind: "content-ref"; url: string }
  | { kind: "file"; src: string }
  | { kind: "include"; target: string; space?: string }
  | { kind: "expandable"; title: string; open: boolean; parts: Part[] }
  | { kind: "embed"; url: string }
  | { kind: "openapi"; tag: OpenApiTag; source: string; path: string; method: string; parts: Part[] }
  | { kind: "openapi-schemas"; spec: string; schemas: string[]; grouped?: boolean; parts: Part[] }
  | { kind: "openapi-webhook"; spec: string; name: string; method: string; parts: Part[] }
  | { kind: "if"; expression: string; parts: Part[] }
  | { kind: "columns"; columns: { width?: string; parts: Part[] }[] }
  | { kind: "updates"; format: UpdatesFormat; updates: { date: string; tags: string[]; parts: Part[] }[] };

/**
 * GitBook's spellings of an OpenAPI operation block: `openapi` and `swagger` name their spec by `src`
 * (a URL or a file), `openapi-operation` by `spec` (the slug of a spec stored in the organization).
 */
export const OPENAPI_TAGS = ["openapi", "swagger", "openapi-operation"] as const;
export type OpenApiTag = (typeof OPENAPI_TAGS)[number];

/** How GitBook's updates block shows its dates (`{% updates format="…" %}`, the document's `data.format`). */
export const UPDATES_FORMATS = ["full", "short", "numeric"] as const;
export type UpdatesFormat = (typeof UPDATES_FORMATS)[number];

/** GitBook's hint styles, as `{% hint style="…" %}` and the document's `data.style` spell them. */
export const HINT_STYLES = ["info", "success", "warning", "danger"] as const;
export type HintStyle = (typeof HINT_STYLES)[number];

type Marker =
  | { type: "tabs" }
  | { type: "hint"; style: HintStyle }
  | { type: "endhint" }
  | { type: "stepper" }
  | { type: "step" }
  | { type: "endstep" }
  | { type: "endstepper" }
  | { type: "content-ref"; url: string }
  | { type: "endcontent-ref" }
  | { type: "file"; src: string }
  | { type: "endfile" }
  | { type: "include"; target: string; space?: string }
  | { type: "tab"; title: string }
  | { type: "endtab" }
  | { type: "endtabs" }
  | { type: "embed"; url: string }
  | { type: "endembed" }
  | { type: "openapi"; tag: OpenApiTag; source: string; path: string; method: string }
  | { type: "endopenapi"; tag: OpenApiTag }
  | { type: "openapi-schemas"; spec: string; schemas: string[]; grouped?: boolean }
  | { type: "endopenapi-schemas" }
  | { type: "openapi-webhook"; spec: string; name: string; method: string }
  | { type: "endopenapi-webhook" }
  | { type: "if"; expression: string }
  | { type: "endif" }
  | { type: "columns" }
  | { type: "column"; width?: string }
  | { type: "endcolumn" }
  | { type: "endcolumns" }
  | { type: "updates"; format: UpdatesFormat }
  | { type: "update"; date: string; tags: string[] }
  | { type: "endupdate" }
  | { type: "endupdates" }
  | { type: "details"; open: boolean }
  | { type: "summary"; title: string }
  | { type: "/details" };

/**
 * Where a paragraph's lines are in the source: from line `line` (1-based) to `lastLine`, the first
 * starting at `offset` when given (else a continuation line too), up to `indent` characters of
 * container prefix (spaces, tabs, `>`) before the others.
 */
interface Frame {
  line: number;
  lastLine: number;
  offset: number | undefined;
  indent: number;
}

/** One line of a paragraph: its inline nodes and, when known, its source text (container prefix removed). */
interface Line {
  nodes: Mdast.PhrasingContent[];
  raw: string | undefined;
  /** Starts a source line at its first column, with no container prefix (a lazy continuation line in a list or quote). */
  unprefixed: boolean;
  /** Ends with a hard break (else a soft line ending separates it from the next line). */
  broken: boolean;
  /** Goes on with an inline formula begun on an earlier line (no line ending of the text before it; never a tag). */
  continued?: boolean;
}

type Origin =
  | { kind: "node"; node: Mdast.RootContent }
  | { kind: "paragraph"; node: Mdast.Paragraph; lines: Line[] }
  | { kind: "html"; node: Mdast.Html; pieces: string[] };

interface Token {
  origin: Origin;
  /** Lines [from, to) of a paragraph, or piece `from` of an HTML block. */
  from: number;
  to: number;
  marker?: Marker;
  matched: boolean;
  /** Of a matched opener: the index of its closer. */
  close?: number;
  /** Of matched tabs or a stepper: each tab's (step's) opener and closer. */
  items?: { open: number; close: number }[];
  /** Of a details opener: the index of the summary it took. */
  summary?: number;
}

interface Entry {
  at: number;
  kind:
    | "tabs"
    | "tab"
    | "stepper"
    | "step"
    | "columns"
    | "column"
    | "updates"
    | "update"
    | "hint"
    | "content-ref"
    | "details"
    | "embed"
    | "file"
    | "if"
    | "openapi-schemas"
    | "openapi-webhook"
    | OpenApiTag;
  parent?: Entry;
  items: { open: number; close: number }[];
}

/** A tag: its name, an optional quoted argument (`{% include "…" %}`), its attributes. */
const TAG = /^\{%\s*([A-Za-z]+(?:-[A-Za-z]+)*)(?:\s+"([^"]*)")?((?:\s+[A-Za-z]+\s*=\s*"[^"]*")*)\s*%\}$/;
/** `{% if <expression> %}`: GitBook writes the condition's expression as it is, unquoted. */
const IF_TAG = /^\{%\s*if\s+(\S[^\n]*?)\s*%\}$/;
const ATTRIBUTE = /([A-Za-z]+)\s*=\s*"([^"]*)"/g;
const HTML_PIECE = /\s*(<details(\s[^>]*)?>|<summary\s*>([\s\S]*?)<\/summary\s*>|<\/details\s*>|\{%[^\n]*%\}(?=[ \t]*(?:\n|$)))/iy;
const CLOSES: Partial<Record<Marker["type"], Entry["kind"]>> = {
  endtab: "tab",
  endtabs: "tabs",
  endstep: "step",
  endstepper: "stepper",
  endhint: "hint",
  "endcontent-ref": "content-ref",
  "/details": "details",
  endif: "if",
  endcolumn: "column",
  endcolumns: "columns",
  endupdate: "update",
  endupdates: "updates",
  "endopenapi-schemas": "openapi-schemas",
  "endopenapi-webhook": "openapi-webhook",
};
/** Openers whose blocks are items (tabs of tabs, steps of a stepper), each only directly inside its group. */
const ITEM_OF: Partial<Record<Entry["kind"], Entry["kind"]>> = { tab: "tabs", step: "stepper", column: "columns", update: "updates" };
/** Groups of items (tabs, a stepper, columns, updates): everything between their markers must be one of their items. */
const GROUPS = new Set<Entry["kind"]>(["tabs", "stepper", "columns", "updates"]);
/** A column's width as GitBook writes it: a number, of a unit or a percentage (`50%`, `320px`, `1.5`). */
const COLUMN_WIDTH = /^\d{1,6}(?:\.\d{1,20})?(?:%|[a-z]{1,4})?$/;
/** An update's date: a day (`2025-12-25`) or a full timestamp. */
const UPDATE_DATE = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2}))?$/;
/** Markers that stand alone, closed by their end tag when it follows them (a caption between is the blocks it is). */
const STANDALONE = { embed: "endembed", file: "endfile" } as const;
const ENTITY = /&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos|nbsp);/gi;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** An attribute value as a tag holds it: `"` and a `&` that would read as `&quot;`/`&amp;` are written as entities. */
export function encodeAttribute(value: string): string {
  return value
    .replace(/[\r\n]+/g, " ")
    .replace(/&(?=(?:quot|amp);)/g, "&amp;")
    .replace(/"/g, "&quot;");
}

function decodeAttribute(value: string): string {
  return value.replace(/&(quot|amp);/g, (_, name: string) => (name === "quot" ? '"' : "&"));
}

/** Text as `<summary>` holds it (HTML: `&`, `<` and `>` escaped). */
export function encodeSummary(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function decodeSummary(html: string): string {
  const text = html.replace(/<[^>]*>/g, "").replace(ENTITY, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#")) {
      const code = lower.startsWith("#x") ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[lower] ?? whole;
  });
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

/** A `{% … %}` line as a marker, or undefined when it is not one (an unknown tag, a missing url). */
function tagMarker(text: string): Marker | undefined {
  const conditional = IF_TAG.exec(text);
  if (conditional) return { type: "if", expression: conditional[1]! };
  const match = TAG.exec(text);
  if (!match) return undefined;
  const argument = match[2];
  const attributes = new Map<string, string>();
  for (const attribute of match[3]!.matchAll(ATTRIBUTE)) attributes.set(attribute[1]!, decodeAttribute(attribute[2]!));
  // Only `include` takes an argument.
  if ((argument !== undefined) !== (match[1] === "include")) return undefined;
  switch (match[1]) {
    case "tabs":
      return { type: "tabs" };
    case "tab":
      return { type: "tab", title: (attributes.get("title") ?? "").trim() };
    case "endtab":
      return { type: "endtab" };
    case "endtabs":
      return { type: "endtabs" };
    case "hint": {
      const style = HINT_STYLES.find((known) => known === attributes.get("style")?.trim());
      return style ? { type: "hint", style } : undefined;
    }
    case "endhint":
      return { type: "endhint" };
    case "stepper":
    case "step":
    case "endstep":
    case "endstepper":
    case "endcontent-ref":
    case "endembed":
    case "endfile":
    case "endif":
    case "columns":
    case "endcolumn":
    case "endcolumns":
    case "endupdate":
    case "endupdates":
      return match[3]!.trim() === "" ? { type: match[1] } : undefined;
    case "column": {
      const width = attributes.get("width")?.trim();
      if ([...attributes.keys()].some((name) => name !== "width") || (width !== undefined && !COLUMN_WIDTH.test(width))) return undefined;
      return width ? { type: "column", width } : { type: "column" };
    }
    case "updates": {
      const format = UPDATES_FORMATS.find((known) => known === (attributes.get("format")?.trim() ?? "full"));
      return format ? { type: "updates", format } : undefined;
    }
    case "update": {
      const date = (attributes.get("date") ?? "").trim();
      if (!UPDATE_DATE.test(date) || Number.isNaN(Date.parse(date))) return undefined;
      const tags = (attributes.get("tags") ?? "")
        .split(",")
        .map((tag) => tag.trim())
        .filter((tag) => tag !== "");
      // Tags are slugs: one with a space, a quote or an ampersand is no tag list GitBook writes.
      return tags.every((tag) => /^[^\s,"&]+$/.test(tag)) ? { type: "update", date, tags } : undefined;
    }
    case "embed":
    case "content-ref": {
      // GitBook's own pages sometimes write the URL as an autolink: `url="<https://…>"`.
      const url = (attributes.get("url") ?? "")
        .trim()
        .replace(/^<(.*)>$/, "$1")
        .trim();
      return url === "" ? undefined : { type: match[1], url };
    }
    case "file": {
      const src = (attributes.get("src") ?? "").trim();
      return src === "" ? undefined : { type: "file", src };
    }
    case "include": {
      const target = decodeAttribute(argument!).trim();
      const space = attributes.get("space")?.trim();
      if (target === "" || [...attributes.keys()].some((name) => name !== "space")) return undefined;
      return space ? { type: "include", target, space } : { type: "include", target };
    }
    case "openapi":
    case "swagger":
    case "openapi-operation": {
      const source = (attributes.get(match[1] === "openapi-operation" ? "spec" : "src") ?? "").trim();
      const path = (attributes.get("path") ?? "").trim();
      const method = (attributes.get("method") ?? "").trim();
      return source === "" || path === "" || method === "" ? undefined : { type: "openapi", tag: match[1], source, path, method };
    }
    case "openapi-schemas": {
      const spec = (attributes.get("spec") ?? "").trim();
      const schemas = (attributes.get("schemas") ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "");
      const grouped = attributes.get("grouped")?.trim();
      if (spec === "" || schemas.length === 0 || (grouped !== undefined && grouped !== "true" && grouped !== "false")) return undefined;
      return grouped === undefined ? { type: "openapi-schemas", spec, schemas } : { type: "openapi-schemas", spec, schemas, grouped: grouped === "true" };
    }
    case "openapi-webhook": {
      const spec = (attributes.get("spec") ?? "").trim();
      const name = (attributes.get("name") ?? "").trim();
      const method = (attributes.get("method") ?? "").trim();
      return spec === "" || name === "" || method === "" ? undefined : { type: "openapi-webhook", spec, name, method };
    }
    case "endopenapi-schemas":
    case "endopenapi-webhook":
      return match[3]!.trim() === "" ? { type: match[1] } : undefined;
    case "endopenapi":
    case "endswagger":
    case "endopenapi-operation":
      return match[3]!.trim() === "" ? { type: "endopenapi", tag: match[1].slice(3) as OpenApiTag } : undefined;
    default:
      return undefined;
  }
}

/**
 * An HTML block made only of `<details>`, `<summary>…</summary>`, `</details>` and tag lines (an
 * HTML block runs on to the next blank line: `</details>` then `{% endtab %}`): its pieces, else undefined.
 */
function htmlPieces(value: string): { text: string; marker: Marker }[] | undefined {
  const pieces: { text: string; marker: Marker }[] = [];
  HTML_PIECE.lastIndex = 0;
  let end = 0;
  for (let match = HTML_PIECE.exec(value); match; match = HTML_PIECE.exec(value)) {
    const text = match[1]!;
    end = HTML_PIECE.lastIndex;
    if (text.startsWith("{%")) {
      const marker = tagMarker(text.trim());
      if (!marker) return undefined;
      pieces.push({ text, marker });
    } else if (/^<summary/i.test(text)) pieces.push({ text, marker: { type: "summary", title: decodeSummary(match[3] ?? "") } });
    else if (/^<\//.test(text)) pieces.push({ text, marker: { type: "/details" } });
    else pieces.push({ text, marker: { type: "details", open: /(^|\s)open(\s|=|$)/i.test(match[2] ?? "") } });
  }
  return pieces.length > 0 && value.slice(end).trim() === "" ? pieces : undefined;
}

/** Text as markdown reads it outside a formula: a backslash before ASCII punctuation escapes it. */
function readEscapes(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

export class MarkerReader {
  private readonly lineCache = new WeakMap<Mdast.Paragraph, Line[]>();
  private readonly frames = new WeakMap<Mdast.Paragraph, Frame>();
  private lineStarts: number[] | undefined;

  /** `source`: the markdown the tree was parsed from, when known (tags and formulas are then read as written). */
  constructor(private readonly source: string | undefined) {}

  /** Whether `node` starts with a backslash escape in the source (`\\[!NOTE]` is text, not a hint's marker). */
  startsEscaped(node: Mdast.Node): boolean {
    const offset = node.position?.start.offset;
    return this.source !== undefined && offset !== undefined && this.source[offset] === "\\";
  }

  // ── source lines ──────────────────────────────────────────────────────────────────────────

  /** The source from `offset` to the end of its line. */
  private rawFrom(offset: number | undefined): string | undefined {
    if (this.source === undefined || offset === undefined) return undefined;
    const end = this.source.indexOf("\n", offset);
    return this.source.slice(offset, end < 0 ? undefined : end).replace(/\r$/, "");
  }

  /** Source line `line` (1-based) without the container's prefix: up to `indent` spaces, tabs or `>`. */
  private rawLine(line: number, indent: number): string | undefined {
    if (this.source === undefined) return undefined;
    const source = this.source;
    this.lineStarts ??= [0, ...[...source.matchAll(/\n/g)].map((match) => match.index + 1)];
    const start = this.lineStarts[line - 1];
    if (start === undefined) return undefined;
    const text = this.rawFrom(start)!;
    let cut = 0;
    while (cut < indent && cut < text.length && " \t>".includes(text[cut]!)) cut++;
    return text.slice(cut);
  }

  /** `paragraph` holds the lines of `original` from its `skip`-th on (a hint's text after its marker line). */
  continues(paragraph: Mdast.Paragraph, original: Mdast.Paragraph, skip: number): void {
    const frame = this.frameOf(original);
    if (frame) this.frames.set(paragraph, { ...frame, line: frame.line + skip, offset: skip > 0 ? undefined : frame.offset });
  }

  private frameOf(paragraph: Mdast.Paragraph): Frame | undefined {
    const position = paragraph.position;
    return (
      this.frames.get(paragraph) ??
      (position
        ? { line: position.start.line, lastLine: position.end.line, offset: position.start.offset, indent: Math.max(position.start.column - 1, 0) }
        : undefined)
    );
  }

  /**
   * A paragraph's lines (split at soft and hard line endings), each with its source text when the
   * lines are those of the paragraph's place in the source (an inline node across lines, such as
   * HTML, leaves them unknown).
   */
  private linesOf(paragraph: Mdast.Paragraph): Line[] {
    const cached = this.lineCache.get(paragraph);
    if (cached) return cached;
    const lines: Line[] = [];
    let current: Line | undefined;
    const open = (): Line => {
      current = { nodes: [], raw: undefined, unprefixed: false, broken: false };
      lines.push(current);
      return current;
    };
    for (const child of paragraph.children) {
      if (child.type === "text") {
        child.value.split("\n").forEach((piece, index) => {
          const line = index > 0 || !current || current.broken ? open() : current;
          if (piece !== "") line.nodes.push({ type: "text", value: piece });
        });
        continue;
      }
      const line = !current || current.broken ? open() : current;
      line.nodes.push(child);
      if (child.type === "break") line.broken = true;
      // A formula across source lines: the lines it goes on to are lines of the paragraph too.
      const position = child.type === "inlineMath" ? child.position : undefined;
      for (let extra = position ? position.end.line - position.start.line : 0; extra > 0; extra--) {
        current = { nodes: [], raw: undefined, unprefixed: false, broken: false, continued: true };
        lines.push(current);
      }
    }
    const frame = this.frameOf(paragraph);
    if (this.source !== undefined && frame && frame.lastLine - frame.line + 1 === lines.length) {
      lines.forEach((line, index) => {
        line.raw = index === 0 && frame.offset !== undefined ? this.rawFrom(frame.offset) : this.rawLine(frame.line + index, frame.indent);
        line.unprefixed = frame.indent > 0 && (index > 0 || frame.offset === undefined) && this.rawLine(frame.line + index, 0) === line.raw;
      });
    }
    this.lineCache.set(paragraph, lines);
    return lines;
  }

  private lineMarker(line: Line): Marker | undefined {
    if (line.continued) return undefined;
    let text = line.raw?.trim();
    if (text === undefined) {
      // With the source, a line it cannot locate is no marker; without, the parsed text is read.
      if (this.source !== undefined) return undefined;
      const [first] = line.nodes;
      if (first?.type !== "text" || !first.value.trimStart().startsWith("{%")) return undefined;
      text = line.nodes
        .map((node) => toString(node))
        .join("")
        .trim();
    }
    return text.startsWith("{%") ? tagMarker(text) : undefined;
  }

  /** A paragraph of some of `paragraph`'s lines (the paragraph itself when all of them); none when they hold nothing (a lone hard break). */
  private paragraphOf(paragraph: Mdast.Paragraph, lines: Line[], from: number, to: number): Mdast.Paragraph | undefined {
    if (from === 0 && to === lines.length) return paragraph;
    const children: Mdast.PhrasingContent[] = [];
    for (let index = from; index < to; index++) {
      const line = lines[index]!;
      if (index > from && !lines[index - 1]!.broken && !line.continued) children.push({ type: "text", value: "\n" });
      children.push(...line.nodes);
    }
    // A hard break before a marker line ended the line, not the paragraph.
    if (children[children.length - 1]?.type === "break") children.pop();
    if (children.length === 0) return undefined;
    const merged: Mdast.PhrasingContent[] = [];
    for (const child of children) {
      const last = merged[merged.length - 1];
      if (last?.type === "text" && child.type === "text") merged[merged.length - 1] = { type: "text", value: last.value + child.value };
      else merged.push(child);
    }
    const part: Mdast.Paragraph = { type: "paragraph", children: merged };
    this.lineCache.set(part, lines.slice(from, to));
    const frame = this.frameOf(paragraph);
    if (frame) this.frames.set(part, { ...frame, line: frame.line + from, lastLine: frame.line + to - 1, offset: from === 0 ? frame.offset : undefined });
    return part;
  }

  // ── block math ────────────────────────────────────────────────────────────────────────────

  /** The formula of a paragraph holding only `$$ … $$`, else undefined. */
  formulaOf(paragraph: Mdast.Paragraph): string | undefined {
    const [first] = paragraph.children;
    if (first?.type === "inlineMath" && paragraph.children.length === 1) return this.formulaOfInlineMath(paragraph, first);
    if (first?.type !== "text" || !first.value.trimStart().startsWith("$$")) return undefined;
    const lines = this.linesOf(paragraph);
    let text: string;
    if (lines.every((line) => line.raw !== undefined)) text = lines.map((line) => line.raw).join("\n");
    else if (this.source === undefined && paragraph.children.every((child) => child.type === "text" || child.type === "break"))
      text = lines.map((line) => toString(line.nodes)).join("\n");
    else return undefined;
    const trimmed = text.trim();
    if (trimmed.length < 4 || !trimmed.startsWith("$$") || !trimmed.endsWith("$$")) return undefined;
    const formula = trimmed.slice(2, -2).trim();
    return formula !== "" && !formula.includes("$$") ? formula : undefined;
  }

  /**
   * A paragraph that is one `$$…$$` (markdown read it as one inline formula, across its lines):
   * the formula is its source lines between the `$$`, as written; without the source, the parsed
   * formula (its line endings read as spaces).
   */
  private formulaOfInlineMath(paragraph: Mdast.Paragraph, formula: InlineMath): string | undefined {
    if (this.source === undefined) {
      const parsed = readEscapes(formula.value).trim();
      return parsed === "" ? undefined : parsed;
    }
    const trimmed = this.sourceOf(paragraph)?.trim();
    if (trimmed === undefined) return undefined;
    if (trimmed.length < 4 || !trimmed.startsWith("$$") || !trimmed.endsWith("$$") || trimmed.startsWith("$$$")) return undefined;
    const text = trimmed.slice(2, -2).trim();
    return text !== "" && !text.includes("$$") ? text : undefined;
  }

  /** Whether the paragraph is one formula between `$$` (GitBook's block math), not a longer run of `$` (inline math alone). */
  isLoneFormula(paragraph: Mdast.Paragraph): boolean {
    const [first] = paragraph.children;
    if (first?.type !== "inlineMath" || paragraph.children.length !== 1) return false;
    const source = this.sourceOf(paragraph)?.trim();
    return source === undefined || (source.startsWith("$$") && !source.startsWith("$$$"));
  }

  /** A paragraph's source lines (without their container's prefix), when known. */
  sourceOf(paragraph: Mdast.Paragraph): string | undefined {
    const frame = this.frameOf(paragraph);
    if (this.source === undefined || !frame) return undefined;
    const lines: string[] = [];
    for (let line = frame.line; line <= frame.lastLine; line++) {
      const raw = line === frame.line && frame.offset !== undefined ? this.rawFrom(frame.offset) : this.rawLine(line, frame.indent);
      if (raw === undefined) return undefined;
      lines.push(raw);
    }
    return lines.join("\n");
  }

  // ── tabs, hints, expandables, embeds ──────────────────────────────────────────────────────

  parts(nodes: readonly Mdast.RootContent[]): Part[] {
    const lifts = this.lifts(nodes);
    let lifted = this.lifted(nodes, lifts);
    let tokens = this.tokens(lifted);
    if (!tokens.some((token) => token.marker)) return nodes.map((node) => ({ kind: "node", node }));
    match(tokens);
    // Lines lifted out of a list or quote go back unless one of their markers holds.
    const kept = lifts.filter((lift) => tokens.some((token) => token.origin.node === lift.rest && token.matched && token.marker));
    if (kept.length < lifts.length) {
      lifted = this.lifted(nodes, kept);
      tokens = this.tokens(lifted);
      match(tokens);
    }
    return this.build(tokens, 0, tokens.length);
  }

  /**
   * GitBook writes its tags on the line after a list or a quote (`- item` then `{% endtab %}`),
   * where markdown reads them as lazy continuation lines of the last paragraph in it: those lines,
   * from the first tag at the start of a line, may be lifted out after the list or quote.
   */
  private lifts(nodes: readonly Mdast.RootContent[]): { container: Mdast.RootContent; replacement: Mdast.RootContent; rest: Mdast.Paragraph }[] {
    if (this.source === undefined) return [];
    const lifts: { container: Mdast.RootContent; replacement: Mdast.RootContent; rest: Mdast.Paragraph }[] = [];
    for (const node of nodes) {
      if (node.type !== "list" && node.type !== "blockquote") continue;
      const split = this.splitLazyTags(node);
      if (split) lifts.push({ container: node, replacement: split.container as Mdast.RootContent, rest: split.rest });
    }
    return lifts;
  }

  private lifted(
    nodes: readonly Mdast.RootContent[],
    lifts: { container: Mdast.RootContent; replacement: Mdast.RootContent; rest: Mdast.Paragraph }[],
  ): Mdast.RootContent[] {
    return nodes.flatMap((node) => {
      const lift = lifts.find((candidate) => candidate.container === node);
      return lift ? [lift.replacement, lift.rest] : [node];
    });
  }

  /** The container without the lazy lines of its last paragraph from the first tag on, and those lines. */
  private splitLazyTags(container: Mdast.Parent): { container: Mdast.Parent; rest: Mdast.Paragraph } | undefined {
    const last = container.children[container.children.length - 1];
    if (!last) return undefined;
    let split: { container: Mdast.Parent; rest: Mdast.Paragraph } | undefined;
    if (last.type === "paragraph") {
      const lines = this.linesOf(last);
      const at = lines.findIndex((line, index) => index > 0 && line.unprefixed && this.lineMarker(line) !== undefined);
      const kept = at > 0 ? this.paragraphOf(last, lines, 0, at) : undefined;
      const rest = at > 0 ? this.paragraphOf(last, lines, at, lines.length) : undefined;
      if (kept && rest) split = { container: kept, rest };
    } else if (last.type === "list" || last.type === "listItem" || last.type === "blockquote") {
      split = this.splitLazyTags(last);
    }
    if (!split) return undefined;
    return { container: { ...container, children: [...container.children.slice(0, -1), split.container] } as Mdast.Parent, rest: split.rest };
  }

  private tokens(nodes: readonly Mdast.RootContent[]): Token[] {
    const tokens: Token[] = [];
    for (const node of nodes) {
      if (node.type === "paragraph" && node.children.some((child) => child.type === "text" && child.value.includes("{%"))) {
        const lines = this.linesOf(node);
        const markers = lines.map((line) => this.lineMarker(line));
        if (markers.some(Boolean)) {
          const origin: Origin = { kind: "paragraph", node, lines };
          let from = 0;
          markers.forEach((marker, index) => {
            if (!marker) return;
            if (index > from) tokens.push({ origin, from, to: index, matched: false });
            tokens.push({ origin, from: index, to: index + 1, marker, matched: false });
            from = index + 1;
          });
          if (from < lines.length) tokens.push({ origin, from, to: lines.length, matched: false });
          continue;
        }
      }
      if (node.type === "html") {
        const pieces = htmlPieces(node.value);
        if (pieces) {
          const origin: Origin = { kind: "html", node, pieces: pieces.map((piece) => piece.text) };
          pieces.forEach((piece, index) => tokens.push({ origin, from: index, to: index + 1, marker: piece.marker, matched: false }));
          continue;
        }
      }
      tokens.push({ origin: { kind: "node", node }, from: 0, to: 1, matched: false });
    }
    return tokens;
  }

  private build(tokens: Token[], from: number, to: number): Part[] {
    const parts: Part[] = [];
    let index = from;
    while (index < to) {
      const token = tokens[index]!;
      const marker = token.matched ? token.marker : undefined;
      if (marker?.type === "tabs") {
        parts.push({
          kind: "tabs",
          tabs: token.items!.map((item) => ({
            title: (tokens[item.open]!.marker as { title: string }).title,
            parts: this.build(tokens, item.open + 1, item.close),
          })),
        });
        index = token.close! + 1;
      } else if (marker?.type === "columns") {
        parts.push({
          kind: "columns",
          columns: token.items!.map((item) => {
            const { width } = tokens[item.open]!.marker as { width?: string };
            const parts = this.build(tokens, item.open + 1, item.close);
            return width ? { width, parts } : { parts };
          }),
        });
        index = token.close! + 1;
      } else if (marker?.type === "updates") {
        parts.push({
          kind: "updates",
          format: marker.format,
          updates: token.items!.map((item) => {
            const { date, tags } = tokens[item.open]!.marker as { date: string; tags: string[] };
            return { date, tags, parts: this.build(tokens, item.open + 1, item.close) };
          }),
        });
        index = token.close! + 1;
      } else if (marker?.type === "stepper") {
        parts.push({ kind: "stepper", steps: token.items!.map((item) => this.build(tokens, item.open + 1, item.close)) });
        index = token.close! + 1;
      } else if (marker?.type === "content-ref") {
        // What GitBook writes inside (a link to the target) only repeats the reference.
        parts.push({ kind: "content-ref", url: marker.url });
        index = token.close! + 1;
      } else if (marker?.type === "hint") {
        parts.push({ kind: "hint", style: marker.style, parts: this.build(tokens, index + 1, token.close!) });
        index = token.close! + 1;
      } else if (marker?.type === "if") {
        parts.push({ kind: "if", expression: marker.expression, parts: this.build(tokens, index + 1, token.close!) });
        index = token.close! + 1;
      } else if (marker?.type === "details") {
        const summary = token.summary === undefined ? undefined : (tokens[token.summary]!.marker as { title: string });
        parts.push({
          kind: "expandable",
          title: summary?.title ?? "",
          open: marker.open,
          parts: this.build(tokens, (token.summary ?? index) + 1, token.close!),
        });
        index = token.close! + 1;
      } else if (marker?.type === "openapi-schemas" || marker?.type === "openapi-webhook") {
        const { type: kind, ...pointer } = marker;
        parts.push({ kind, ...pointer, parts: this.build(tokens, index + 1, token.close!) } as Part);
        index = token.close! + 1;
      } else if (marker?.type === "openapi") {
        const { tag, source, path, method } = marker;
        parts.push({ kind: "openapi", tag, source, path, method, parts: this.build(tokens, index + 1, token.close!) });
        index = token.close! + 1;
      } else if (marker?.type === "embed") {
        parts.push({ kind: "embed", url: marker.url });
        index++;
      } else if (marker?.type === "file") {
        parts.push({ kind: "file", src: marker.src });
        index++;
      } else if (marker?.type === "include") {
        parts.push(marker.space ? { kind: "include", target: marker.target, space: marker.space } : { kind: "include", target: marker.target });
        index++;
      } else if (marker) {
        // A matched `{% endembed %}` or `{% endfile %}`: the caption before it reads as the blocks it is.
        index++;
      } else {
        let end = index;
        while (end < to && !(tokens[end]!.matched && tokens[end]!.marker)) end++;
        parts.push(
          ...nodesOf(tokens.slice(index, end), (paragraph, lines, start, stop) => this.paragraphOf(paragraph, lines, start, stop)).map(
            (node): Part => ({ kind: "node", node }),
          ),
        );
        index = end;
      }
    }
    return parts;
  }
}

/** Unmatched tokens back to mdast: consecutive lines or pieces of one node make one node again. */
function nodesOf(
  tokens: Token[],
  paragraphOf: (paragraph: Mdast.Paragraph, lines: Line[], from: number, to: number) => Mdast.Paragraph | undefined,
): Mdast.RootContent[] {
  const nodes: Mdast.RootContent[] = [];
  let index = 0;
  while (index < tokens.length) {
    const origin = tokens[index]!.origin;
    let end = index + 1;
    while (end < tokens.length && tokens[end]!.origin === origin) end++;
    const from = tokens[index]!.from;
    const to = tokens[end - 1]!.to;
    if (origin.kind === "node") nodes.push(origin.node);
    else if (origin.kind === "paragraph") nodes.push(...[paragraphOf(origin.node, origin.lines, from, to)].filter((node) => node !== undefined));
    else nodes.push(from === 0 && to === origin.pieces.length ? origin.node : { type: "html", value: origin.pieces.slice(from, to).join("\n") });
    index = end;
  }
  return nodes;
}

/**
 * Pairs openers with closers: a closer takes the nearest open opener of its kind, and openers
 * above it are left unmatched; a tab opens only directly inside tabs (a step inside a stepper);
 * tabs (a stepper) holding anything outside a tab (a step) are left unmatched, with their tabs.
 * Embeds and files stand alone (`{% endembed %}` closes the embed just before it, if any).
 */
function match(tokens: Token[]): void {
  const stack: Entry[] = [];
  const unmatch = (entry: Entry) => {
    tokens[entry.at]!.matched = false;
    const summary = tokens[entry.at]!.summary;
    if (summary !== undefined) tokens[summary]!.matched = false;
    for (const item of entry.items) tokens[item.open]!.matched = tokens[item.close]!.matched = false;
  };
  tokens.forEach((token, index) => {
    const marker = token.marker;
    if (!marker) return;
    switch (marker.type) {
      case "tabs":
      case "stepper":
      case "columns":
      case "updates":
      case "hint":
      case "content-ref":
      case "if":
      case "openapi-schemas":
      case "openapi-webhook":
        stack.push({ at: index, kind: marker.type, items: [] });
        return;
      case "openapi":
        stack.push({ at: index, kind: marker.tag, items: [] });
        return;
      case "tab":
      case "step":
      case "column":
      case "update": {
        const top = stack.findLast((entry) => !isStandalone(entry.kind));
        if (top && top.kind === ITEM_OF[marker.type]) stack.push({ at: index, kind: marker.type, parent: top, items: [] });
        return;
      }
      case "details":
        stack.push({ at: index, kind: "details", items: [] });
        if (tokens[index + 1]?.marker?.type === "summary") token.summary = index + 1;
        return;
      case "summary":
        return;
      case "include":
        // Stands alone, with no end tag and no caption.
        token.matched = true;
        return;
      case "embed":
      case "file":
        token.matched = true;
        stack.push({ at: index, kind: marker.type, items: [] });
        return;
      case "endembed":
      case "endfile":
        if (STANDALONE[stack[stack.length - 1]?.kind as keyof typeof STANDALONE] === marker.type) {
          stack.pop();
          token.matched = true;
        }
        return;
    }
    const kind = marker.type === "endopenapi" ? marker.tag : CLOSES[marker.type];
    const at = stack.findLastIndex((entry) => entry.kind === kind);
    if (at < 0) return;
    for (const above of stack.splice(at + 1)) if (!isStandalone(above.kind)) unmatch(above);
    const entry = stack.pop()!;
    const opener = tokens[entry.at]!;
    if (ITEM_OF[entry.kind]) {
      opener.matched = token.matched = true;
      entry.parent!.items.push({ open: entry.at, close: index });
      return;
    }
    if (GROUPS.has(entry.kind)) {
      // Everything between the markers must be inside one of the tabs (steps).
      let cursor = entry.at + 1;
      for (const item of entry.items) {
        if (item.open !== cursor) break;
        cursor = item.close + 1;
      }
      if (cursor !== index) {
        unmatch(entry);
        return;
      }
      opener.items = entry.items;
    }
    opener.matched = token.matched = true;
    opener.close = index;
    if (opener.summary !== undefined) tokens[opener.summary]!.matched = true;
  });
  for (const entry of stack) if (!isStandalone(entry.kind)) unmatch(entry);
}

function isStandalone(kind: Entry["kind"]): boolean {
  return kind in STANDALONE;
}
