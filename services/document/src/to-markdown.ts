import type * as Mdast from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { mathToMarkdown } from "mdast-util-math";
import { toMarkdown, type Join, type Unsafe } from "mdast-util-to-markdown";
import { ALLOWS, type Allows, CONTAINER_NAME, type Container } from "./containers.js";
import { parseMarkdown, type ContentRef, type JsonDocument, type MarkType } from "./document.js";
import { encodeAttribute, encodeSummary, HINT_STYLES, UPDATES_FORMATS } from "./markers.js";

/**
 * GitBook's JSON document → markdown: the inverse of `markdownToDocument` for every block, inline
 * and mark the model has. The document is mapped onto mdast and written by mdast-util-to-markdown
 * (with GFM), which escapes text so that it reads back as the same text.
 *
 * `markdownToDocument(documentToMarkdown(markdownToDocument(md)))` equals `markdownToDocument(md)`.
 * What markdown cannot carry is not kept: heading ids (derived again from the heading's text),
 * image captions, table column widths and record ids (columns and rows keep their order), tabs'
 * icons and the full-width setting of tabs and embeds.
 *
 * GitBook's blocks markdown has no construct for are written in GitBook's own syntax: tabs as
 * `{% tabs %}` / `{% tab title="…" %}` … `{% endtab %}` / `{% endtabs %}`, hints as
 * `{% hint style="…" %}` … `{% endhint %}` (`> [!NOTE]` is read too), expandables as
 * `<details>` with a `<summary>`, embeds as `{% embed url="…" %}`, math as `$$` lines around the
 * formula, inline math as `$$…$$` in the text (a longer run of `$` around a formula holding `$$`). Where GitBook's schema does not allow one of them (tabs in a quote, an embed in a list
 * item…) it is refused, as markdown could only read it back degraded.
 *
 * The input is untrusted JSON: every node is checked as it is read, and the first node the model
 * does not have (or a malformed one, or one nested deeper than `MAX_DOCUMENT_NESTING`) throws a
 * `DocumentConversionError` naming its path.
 */

/** A document that cannot be expressed in markdown; `path` locates the node (`nodes[3].nodes[0]`). */
export class DocumentConversionError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = "DocumentConversionError";
  }
}

type Json = Record<string, unknown>;

const MARKS: readonly MarkType[] = ["bold", "italic", "code", "strikethrough"];
/** GitHub's alert markers (`> [!NOTE]`), read as hints: text that would read as one is escaped. */
const ALERT_MARKERS = ["NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"];
const ALIGN: Record<string, Mdast.AlignType> = { left: null, center: "center", right: "right" };
/** The blocks only some containers admit, by type: what `ALLOWS` calls them. */
const PLACED: Partial<Record<string, keyof Allows>> = {
  tabs: "tabs",
  stepper: "stepper",
  hint: "hint",
  expandable: "expandable",
  embed: "embed",
  math: "math",
  "content-ref": "contentRef",
  file: "file",
  "reusable-content": "reusableContent",
  swagger: "openapi",
  "openapi-operation": "openapi",
  "openapi-schemas": "openapi",
  "openapi-webhook": "openapi",
  if: "conditional",
  columns: "columns",
  updates: "updates",
};

/** A regular expression matching `word` in any case (`NOTE`: `[Nn][Oo][Tt][Ee]`). */
const anyCase = (word: string) => [...word].map((character) => `[${character}${character.toLowerCase()}]`).join("");
/** Text that would read back as a tag, a formula or a hint's marker is escaped (`\{% tabs %}`, `\$$`, `\[!NOTE]`). */
const UNSAFE: Unsafe[] = [
  {
    character: "{",
    atBreak: true,
    after:
      "%\\s*(?:tabs|tab|endtab|endtabs|stepper|step|endstep|endstepper|hint|endhint|content-ref|endcontent-ref|file|endfile|embed|endembed|openapi|endopenapi|openapi-operation|endopenapi-operation|swagger|endswagger|include|if|endif|columns|column|endcolumn|endcolumns|updates|update|endupdate|endupdates|openapi-schemas|endopenapi-schemas|openapi-webhook|endopenapi-webhook)(?![\\w-])",
  },
  { character: "$", atBreak: true, after: "\\$" },
  { character: "[", atBreak: true, after: `!(?:${ALERT_MARKERS.map(anyCase).join("|")})\\]` },
];
/** The tab and step markers written by `documentToMarkdown` (HTML nodes written verbatim). */
const TAB_MARKERS = new WeakSet<Mdast.Nodes>();

/** A block's tab (step) markers on consecutive lines, as GitBook writes them, except between two tabs (steps). */
const joinTabMarkers: Join = (left, right) => {
  if (!TAB_MARKERS.has(left) || !TAB_MARKERS.has(right)) return undefined;
  const [before, after] = [(left as Mdast.Html).value, (right as Mdast.Html).value];
  const betweenItems =
    (before === "{% endtab %}" && after.startsWith("{% tab ")) ||
    (before === "{% endstep %}" && after === "{% step %}") ||
    (before === "{% endcolumn %}" && after.startsWith("{% column")) ||
    (before === "{% endupdate %}" && after.startsWith("{% update "));
  return ["{% endtabs %}", "{% endstepper %}", "{% endcolumns %}", "{% endupdates %}"].includes(before) || betweenItems ? undefined : 0;
};

/** Blocks without the empty paragraphs markdown writes as nothing (an empty tab or body reads back as one). */
const withoutEmptyParagraphs = (blocks: Mdast.RootContent[]) => blocks.filter((block) => !(block.type === "paragraph" && block.children.length === 0));

function tabMarker(value: string): Mdast.Html {
  const node: Mdast.Html = { type: "html", value };
  TAB_MARKERS.add(node);
  return node;
}

/** Blocks and inlines nest at most this deep (the conversion recurses; markdown reads deeper nesting back differently anyway). */
export const MAX_DOCUMENT_NESTING = 64;
const nestingOf = (path: string): number => path.split("nodes[").length - 1;
const orderOf = (record: Json): string => (typeof record.orderIndex === "string" ? record.orderIndex : "");
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function fail(path: string, reason: string): never {
  throw new DocumentConversionError(path, reason);
}

function objectAt(value: unknown, path: string): Json {
  if (!isObject(value)) fail(path, "must be an object");
  return value;
}

function arrayAt(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, "must be an array");
  return value;
}

function stringAt(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "must be a string");
  return value;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** The node's `data`, an object when present. */
function dataOf(node: Json, path: string): Json {
  return node.data === undefined ? {} : objectAt(node.data, join(path, "data"));
}

function childrenOf(node: Json, path: string): { value: unknown; path: string }[] {
  const nodesPath = join(path, "nodes");
  return arrayAt(node.nodes ?? [], nodesPath).map((value, index) => ({ value, path: `${nodesPath}[${index}]` }));
}

/** Where a link points, as the markdown URL `markdownToDocument` reads back as the same reference. */
function urlOf(value: unknown, path: string, images: boolean): string {
  const ref = objectAt(value, path) as Partial<ContentRef> & Json;
  switch (ref.kind) {
    case "url":
      return stringAt(ref.url, join(path, "url"));
    case "file":
      return `/files/${stringAt(ref.file, join(path, "file"))}`;
    case "page":
      if (!images) return `/pages/${stringAt(ref.page, join(path, "page"))}`;
      break;
    case "anchor":
      if (!images) {
        const anchor = stringAt(ref.anchor, join(path, "anchor"));
        return ref.page === undefined ? `#${anchor}` : `/pages/${stringAt(ref.page, join(path, "page"))}#${anchor}`;
      }
      break;
  }
  return fail(join(path, "kind"), `${images ? "image" : "link"} reference kind ${JSON.stringify(ref.kind)} is not supported`);
}

/** A column's width (GitBook's `Length`: a number, or a value of a unit) as its tag writes it (`50%`, `320px`, `2`). */
function columnWidthOf(value: unknown, path: string): string {
  const length = isObject(value) ? value : { unit: "", value };
  const unit = length.unit === undefined ? "" : stringAt(length.unit, join(path, "unit"));
  const number = length.value;
  if (typeof number !== "number" || !Number.isFinite(number) || number < 0 || number >= 1_000_000 || !/^(?:%|[a-z]{0,4})$/.test(unit))
    fail(path, "must be a width: a number from 0, or a value of a unit (% or up to 4 letters)");
  const written = `${String(number)}${unit}`;
  // Exponent notation (1e-7) is no width the tag reads back.
  if (!/^\d{1,6}(?:\.\d{1,20})?(?:%|[a-z]{1,4})?$/.test(written)) fail(path, "must be a width written in decimals (up to 20 places)");
  return written;
}

class Writer {
  // ── blocks ────────────────────────────────────────────────────────────────────────────────

  blocks(parent: Json, path: string, container: Container): Mdast.RootContent[] {
    return childrenOf(parent, path).flatMap(({ value, path: childPath }) => this.block(value, childPath, container));
  }

  private block(value: unknown, path: string, container: Container): Mdast.RootContent[] {
    if (nestingOf(path) > MAX_DOCUMENT_NESTING) fail(path, `blocks nest at most ${MAX_DOCUMENT_NESTING} levels deep`);
    const node = objectAt(value, path);
    if (node.object !== "block") fail(path, `must be a block (object "block"), not ${JSON.stringify(node.object)}`);
    const type = stringAt(node.type, join(path, "type"));
    const data = dataOf(node, path);
    const placed = PLACED[type];
    if (placed && !ALLOWS[container][placed]) {
      const places = (Object.keys(ALLOWS) as Container[]).filter((where) => ALLOWS[where][placed]).map((where) => CONTAINER_NAME[where]);
      fail(
        path,
        `block type ${JSON.stringify(type)} is not supported in ${CONTAINER_NAME[container]} (GitBook allows it in ${places.join(", ").replace(/, ([^,]*)$/, " or $1")})`,
      );
    }
    switch (type) {
      case "paragraph": {
        const children = this.inlines(node, path);
        const [first] = children;
        // Alone in its paragraph, a formula between `$$` would read back as a math block: a longer run of `$` keeps it inline.
        if (children.length === 1 && first?.type === "inlineMath" && first.value.trim() !== "")
          return [{ type: "paragraph", children: [loneInlineFormula(first.value)] }];
        return [{ type: "paragraph", children }];
      }
      case "heading-1":
      case "heading-2":
      case "heading-3":
        return [{ type: "heading", depth: Number(type.slice(-1)) as 1 | 2 | 3, children: this.inlines(node, path) }];
      case "divider":
        return [{ type: "thematicBreak" }];
      case "list-ordered":
      case "list-unordered":
      case "list-tasks":
        return [this.list(node, type, data, path)];
      case "code":
        return [this.code(node, data, path)];
      case "blockquote":
        return [{ type: "blockquote", children: this.blocks(node, path, "quote") as Mdast.BlockContent[] }];
      case "hint": {
        const given = data.style ?? "info";
        const style = HINT_STYLES.find((known) => known === given);
        if (!style) fail(join(path, "data.style"), `hint style ${JSON.stringify(given)} is not supported (${HINT_STYLES.join(", ")})`);
        // The markers are written verbatim (html nodes), so they are not escaped.
        return [
          { type: "html", value: `{% hint style="${style}" %}` },
          ...withoutEmptyParagraphs(this.blocks(node, path, "hint")),
          { type: "html", value: "{% endhint %}" },
        ];
      }
      case "if": {
        const expression = stringAt(data.expression, join(path, "data.expression")).trim();
        // GitBook writes the expression unquoted on the tag's line: it must be one line, not empty.
        if (expression === "" || /[\r\n]/.test(expression)) fail(join(path, "data.expression"), "must be a condition on one line (not empty)");
        return [
          { type: "html", value: `{% if ${expression} %}` },
          ...withoutEmptyParagraphs(this.blocks(node, path, "document")),
          { type: "html", value: "{% endif %}" },
        ];
      }
      case "columns":
        return this.columns(node, path);
      case "updates":
        return this.updates(node, data, path);
      case "images":
        return [{ type: "paragraph", children: this.images(node, path) }];
      case "table":
        return [this.table(node, data, path)];
      case "tabs":
        return this.tabs(node, path);
      case "expandable":
        return this.expandable(node, data, path);
      case "embed": {
        const url = stringAt(data.url, join(path, "data.url")).trim();
        this.checkTagValue(url, join(path, "data.url"));
        return [{ type: "html", value: `{% embed url="${encodeAttribute(url)}" %}` }];
      }
      case "math":
        return this.math(data, path);
      case "stepper":
        return this.stepper(node, path);
      case "content-ref": {
        // GitBook writes a link to the target between the tags; reading ignores it.
        const url = urlOf(data.ref, join(path, "data.ref"), false).trim();
        this.checkTagValue(url, join(path, "data.ref"));
        return [
          { type: "html", value: `{% content-ref url="${encodeAttribute(url)}" %}` },
          { type: "paragraph", children: [{ type: "link", url, children: [{ type: "text", value: url }] }] },
          { type: "html", value: "{% endcontent-ref %}" },
        ];
      }
      case "file": {
        const ref = objectAt(data.ref, join(path, "data.ref"));
        if (ref.kind !== "file") fail(join(path, "data.ref.kind"), `a file block's reference is a file, not ${JSON.stringify(ref.kind)}`);
        const src = urlOf(ref, join(path, "data.ref"), true);
        this.checkTagValue(src, join(path, "data.ref.file"));
        return [{ type: "html", value: `{% file src="${encodeAttribute(src)}" %}\n{% endfile %}` }];
      }
      case "reusable-content": {
        const ref = objectAt(data.ref, join(path, "data.ref"));
        if (ref.kind !== "reusable-content") {
          fail(join(path, "data.ref.kind"), `a reusable content block's reference is a reusable content, not ${JSON.stringify(ref.kind)}`);
        }
        const id = stringAt(ref.reusableContent, join(path, "data.ref.reusableContent"));
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
          fail(join(path, "data.ref.reusableContent"), "must be a reusable content's id (1 to 64 letters, digits, - or _)");
        // Another space's reusable content (GitBook's `ref.space`) is named by an attribute of Imprint's.
        const space = ref.space === undefined ? "" : stringAt(ref.space, join(path, "data.ref.space"));
        if (space !== "" && !/^[A-Za-z0-9_-]{1,64}$/.test(space)) fail(join(path, "data.ref.space"), "must be a space's id");
        return [{ type: "html", value: `{% include ".gitbook/includes/${id}.md"${space ? ` space="${space}"` : ""} %}` }];
      }
      case "swagger": {
        // GitBook writes a link to the spec between the tags; reading ignores it.
        const src = urlOf(data.ref, join(path, "data.ref"), true).trim();
        this.checkTagValue(src, join(path, "data.ref"));
        const tag = data.tag === "swagger" ? "swagger" : "openapi";
        return [
          { type: "html", value: `{% ${tag} src="${encodeAttribute(src)}" ${this.operationAttributes(data, path)} %}` },
          { type: "paragraph", children: [{ type: "link", url: src, children: [{ type: "text", value: src }] }] },
          { type: "html", value: `{% end${tag} %}` },
        ];
      }
      case "openapi-schemas":
      case "openapi-webhook": {
        const ref = objectAt(data.ref, join(path, "data.ref"));
        if (ref.kind !== "openapi") fail(join(path, "data.ref.kind"), `an ${type} block's reference is an OpenAPI spec, not ${JSON.stringify(ref.kind)}`);
        const spec = stringAt(ref.spec, join(path, "data.ref.spec")).trim();
        this.checkTagValue(spec, join(path, "data.ref.spec"));
        let pointer: string;
        if (type === "openapi-schemas") {
          const schemas = arrayAt(data.schemas, join(path, "data.schemas")).map((name, index) => {
            const namePath = join(path, `data.schemas[${index}]`);
            const trimmed = stringAt(name, namePath).trim();
            // The names are one comma-separated attribute: a name holding a comma would read back as two.
            if (trimmed.includes(",")) fail(namePath, "must be a schema's name without a comma");
            this.checkTagValue(trimmed, namePath);
            return trimmed;
          });
          if (schemas.length === 0) fail(join(path, "data.schemas"), "must name at least one schema");
          const grouped = data.grouped === undefined ? "" : ` grouped="${data.grouped === true}"`;
          pointer = `schemas="${encodeAttribute(schemas.join(","))}"${grouped}`;
        } else {
          const name = stringAt(data.name, join(path, "data.name")).trim();
          const method = stringAt(data.method, join(path, "data.method")).trim();
          this.checkTagValue(name, join(path, "data.name"));
          this.checkTagValue(method, join(path, "data.method"));
          pointer = `name="${encodeAttribute(name)}" method="${encodeAttribute(method)}"`;
        }
        return [{ type: "html", value: `{% ${type} spec="${encodeAttribute(spec)}" ${pointer} %}\n{% end${type} %}` }];
      }
      case "openapi-operation": {
        const ref = objectAt(data.ref, join(path, "data.ref"));
        if (ref.kind !== "openapi")
          fail(join(path, "data.ref.kind"), `an openapi-operation block's reference is an OpenAPI spec, not ${JSON.stringify(ref.kind)}`);
        const spec = stringAt(ref.spec, join(path, "data.ref.spec")).trim();
        this.checkTagValue(spec, join(path, "data.ref.spec"));
        return [
          {
            type: "html",
            value: `{% openapi-operation spec="${encodeAttribute(spec)}" ${this.operationAttributes(data, path)} %}\n{% endopenapi-operation %}`,
          },
        ];
      }
      default:
        return fail(path, `block type ${JSON.stringify(type)} is not supported`);
    }
  }

  private list(node: Json, type: string, data: Json, path: string): Mdast.List {
    const children = childrenOf(node, path).map(({ value, path: itemPath }): Mdast.ListItem => {
      const item = objectAt(value, itemPath);
      if (item.object !== "block" || item.type !== "list-item") fail(itemPath, `a list holds list-item blocks, not ${JSON.stringify(item.type)}`);
      const itemData = dataOf(item, itemPath);
      const checked = type === "list-tasks" ? itemData.checked === true : null;
      const blocks = this.blocks(item, itemPath, "list-item") as Mdast.BlockContent[];
      // An empty item is written without content, so that the writer sees it is empty: nested in two
      // lists' first items, `- - -` would read back as a thematic break, and it picks another bullet.
      return { type: "listItem", spread: false, checked, children: blocks.length === 1 && isEmptyParagraph(blocks[0]!) ? [] : blocks };
    });
    if (type !== "list-ordered") return { type: "list", ordered: false, spread: false, children };
    const start = data.start ?? 1;
    if (typeof start !== "number" || !Number.isInteger(start) || start < 0 || start > 999_999_999) {
      fail(join(path, "data.start"), "must be an integer from 0 to 999999999");
    }
    return { type: "list", ordered: true, start, spread: false, children };
  }

  private code(node: Json, data: Json, path: string): Mdast.Code {
    const lines = childrenOf(node, path).map(({ value, path: linePath }) => {
      const line = objectAt(value, linePath);
      if (line.object !== "block" || line.type !== "code-line") fail(linePath, `a code block holds code-line blocks, not ${JSON.stringify(line.type)}`);
      return this.plainText(line, linePath);
    });
    const syntax = data.syntax === undefined ? null : stringAt(data.syntax, join(path, "data.syntax"));
    if (syntax !== null && /[\s`]/.test(syntax)) fail(join(path, "data.syntax"), "must not contain spaces or backticks");
    return { type: "code", lang: syntax === "" ? null : syntax, value: lines.join("\n") };
  }

  /** An OpenAPI block's `path="…" method="…"` (GitBook's operation pointer), each a tag value. */
  private operationAttributes(data: Json, path: string): string {
    const operationPath = stringAt(data.path, join(path, "data.path")).trim();
    const method = stringAt(data.method, join(path, "data.method")).trim();
    this.checkTagValue(operationPath, join(path, "data.path"));
    this.checkTagValue(method, join(path, "data.method"));
    return `path="${encodeAttribute(operationPath)}" method="${encodeAttribute(method)}"`;
  }

  /** A URL a tag holds (trimmed): not empty, no line breaks or control characters. */
  private checkTagValue(url: string, path: string): void {
    const control = [...url].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);
    if (url === "" || control) fail(path, "must be a URL (not empty, no line breaks or control characters)");
  }

  /** `{% stepper %}`, each step's blocks between `{% step %}` and `{% endstep %}`, `{% endstepper %}`. */
  private stepper(node: Json, path: string): Mdast.RootContent[] {
    const out: Mdast.RootContent[] = [tabMarker("{% stepper %}")];
    for (const { value, path: stepPath } of childrenOf(node, path)) {
      const step = objectAt(value, stepPath);
      if (step.object !== "block" || step.type !== "stepper-step") fail(stepPath, `a stepper holds stepper-step blocks, not ${JSON.stringify(step.type)}`);
      out.push(tabMarker("{% step %}"), ...withoutEmptyParagraphs(this.blocks(step, stepPath, "stepper-step")), tabMarker("{% endstep %}"));
    }
    out.push(tabMarker("{% endstepper %}"));
    return out;
  }

  /** `{% columns %}`, each column's blocks between `{% column %}` (with its width, GitBook's `width="50%"`) and `{% endcolumn %}`, `{% endcolumns %}`. */
  private columns(node: Json, path: string): Mdast.RootContent[] {
    const out: Mdast.RootContent[] = [tabMarker("{% columns %}")];
    for (const { value, path: columnPath } of childrenOf(node, path)) {
      const column = objectAt(value, columnPath);
      if (column.object !== "block" || column.type !== "column") fail(columnPath, `a columns block holds column blocks, not ${JSON.stringify(column.type)}`);
      const width = dataOf(column, columnPath).width;
      out.push(
        tabMarker(width === undefined ? "{% column %}" : `{% column width="${columnWidthOf(width, join(columnPath, "data.width"))}" %}`),
        ...withoutEmptyParagraphs(this.blocks(column, columnPath, "column")),
        tabMarker("{% endcolumn %}"),
      );
    }
    out.push(tabMarker("{% endcolumns %}"));
    return out;
  }

  /** `{% updates format="…" %}`, each update's blocks between `{% update date="…" tags="…" %}` and `{% endupdate %}`, `{% endupdates %}`. */
  private updates(node: Json, data: Json, path: string): Mdast.RootContent[] {
    const format = data.format ?? "full";
    if (!UPDATES_FORMATS.some((known) => known === format))
      fail(join(path, "data.format"), `updates format ${JSON.stringify(format)} is not supported (${UPDATES_FORMATS.join(", ")})`);
    const out: Mdast.RootContent[] = [tabMarker(`{% updates format="${format as string}" %}`)];
    for (const { value, path: updatePath } of childrenOf(node, path)) {
      const update = objectAt(value, updatePath);
      if (update.object !== "block" || update.type !== "update") fail(updatePath, `an updates block holds update blocks, not ${JSON.stringify(update.type)}`);
      const updateData = dataOf(update, updatePath);
      const datePath = join(updatePath, "data.date");
      const date = new Date(stringAt(updateData.date, datePath));
      if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 0 || date.getUTCFullYear() > 9999) fail(datePath, "must be a date (a timestamp)");
      const iso = date.toISOString();
      // A day at midnight UTC is written as the day, as GitBook writes it.
      const written = iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
      const tags = arrayAt(updateData.tags ?? [], join(updatePath, "data.tags")).map((tag, index) => {
        const tagPath = join(updatePath, `data.tags[${index}]`);
        const ref = objectAt(tag, tagPath);
        if (ref.kind !== "tag") fail(join(tagPath, "kind"), `an update's tag is a tag reference, not ${JSON.stringify(ref.kind)}`);
        const slug = stringAt(ref.tag, join(tagPath, "tag")).trim();
        if (!/^[^\s,"&]+$/.test(slug)) fail(join(tagPath, "tag"), "must be a tag's slug (no spaces, commas, quotes or &)");
        return slug;
      });
      out.push(
        tabMarker(`{% update date="${written}"${tags.length > 0 ? ` tags="${tags.join(",")}"` : ""} %}`),
        ...withoutEmptyParagraphs(this.blocks(update, updatePath, "update")),
        tabMarker("{% endupdate %}"),
      );
    }
    out.push(tabMarker("{% endupdates %}"));
    return out;
  }

  /** `{% tabs %}`, each tab's title and blocks between `{% tab title="…" %}` and `{% endtab %}`, `{% endtabs %}`. */
  private tabs(node: Json, path: string): Mdast.RootContent[] {
    const out: Mdast.RootContent[] = [tabMarker("{% tabs %}")];
    for (const { value, path: itemPath } of childrenOf(node, path)) {
      const item = objectAt(value, itemPath);
      if (item.object !== "block" || item.type !== "tabs-item") fail(itemPath, `a tabs block holds tabs-item blocks, not ${JSON.stringify(item.type)}`);
      const itemData = dataOf(item, itemPath);
      const title = itemData.title === undefined ? "" : stringAt(itemData.title, join(itemPath, "data.title"));
      out.push(
        tabMarker(`{% tab title="${encodeAttribute(title.trim())}" %}`),
        ...withoutEmptyParagraphs(this.blocks(item, itemPath, "tabs-item")),
        tabMarker("{% endtab %}"),
      );
    }
    out.push(tabMarker("{% endtabs %}"));
    return out;
  }

  /** `<details>` (`<details open>` when expanded by default), `<summary>` with the title's text, the body, `</details>`. */
  private expandable(node: Json, data: Json, path: string): Mdast.RootContent[] {
    let title = "";
    let body: Mdast.RootContent[] = [];
    arrayAt(node.fragments ?? [], join(path, "fragments")).forEach((value, index) => {
      const fragmentPath = join(path, `fragments[${index}]`);
      const fragment = objectAt(value, fragmentPath);
      const name = stringAt(fragment.fragment, join(fragmentPath, "fragment"));
      if (name === "expandable-title") {
        title = childrenOf(fragment, fragmentPath)
          .map(({ value: block, path: blockPath }) => {
            const paragraph = objectAt(block, blockPath);
            if (paragraph.object !== "block" || paragraph.type !== "paragraph")
              fail(blockPath, `an expandable's title is a paragraph, not ${JSON.stringify(paragraph.type)}`);
            return this.plainText(paragraph, blockPath);
          })
          .join(" ");
      } else if (name === "expandable-body") {
        body = withoutEmptyParagraphs(this.blocks(fragment, fragmentPath, "expandable"));
      } else {
        fail(join(fragmentPath, "fragment"), `an expandable's fragments are expandable-title and expandable-body, not ${JSON.stringify(name)}`);
      }
    });
    const open = data.defaultExpanded === true;
    return [
      { type: "html", value: open ? "<details open>" : "<details>" },
      { type: "html", value: `<summary>${encodeSummary(title)}</summary>` },
      ...body,
      { type: "html", value: "</details>" },
    ];
  }

  /** `$$`, the formula's lines, `$$`: one paragraph (blank lines are dropped); an empty formula writes nothing. */
  private math(data: Json, path: string): Mdast.RootContent[] {
    const formulaPath = join(path, "data.formula");
    const formula = stringAt(data.formula, formulaPath)
      .split(/\r?\n/)
      .filter((line) => line.trim() !== "")
      .join("\n")
      .trim();
    if (formula === "") return [];
    if (formula.includes("$$")) fail(formulaPath, 'must not contain "$$"');
    const value = `$$\n${formula}\n$$`;
    const read = parseMarkdown(value).children;
    if (read.length !== 1 || read[0]!.type !== "paragraph") fail(formulaPath, "cannot be written as markdown: a line of it would start another block");
    return [{ type: "html", value }];
  }

  /** The text of a node's text children, marks dropped (code lines, table titles). */
  private plainText(node: Json, path: string): string {
    return this.inlines(node, path)
      .map((child) => (child.type === "text" || child.type === "inlineCode" ? child.value : ""))
      .join("");
  }

  private images(node: Json, path: string): Mdast.PhrasingContent[] {
    const out: Mdast.PhrasingContent[] = [];
    for (const { value, path: imagePath } of childrenOf(node, path)) {
      const image = objectAt(value, imagePath);
      if (image.object !== "block" || image.type !== "image") fail(imagePath, `an images block holds image blocks, not ${JSON.stringify(image.type)}`);
      if (out.length > 0) out.push({ type: "text", value: " " });
      out.push(this.image(dataOf(image, imagePath), imagePath));
    }
    return out;
  }

  private image(data: Json, path: string): Mdast.Image {
    const alt = data.alt === undefined ? null : stringAt(data.alt, join(path, "data.alt"));
    return { type: "image", url: urlOf(data.ref, join(path, "data.ref"), true), alt };
  }

  /** GitBook's table: columns in view order, rows in `orderIndex` order, each text cell a fragment's paragraph. */
  private table(node: Json, data: Json, path: string): Mdast.Table {
    const view = objectAt(data.view, join(path, "data.view"));
    const columns = arrayAt(view.columns, join(path, "data.view.columns")).map((id, index) => stringAt(id, join(path, `data.view.columns[${index}]`)));
    const definition = objectAt(data.definition ?? {}, join(path, "data.definition"));
    const records = objectAt(data.records ?? {}, join(path, "data.records"));
    const fragments = new Map<string, { value: Json; path: string }>();
    arrayAt(node.fragments ?? [], join(path, "fragments")).forEach((value, index) => {
      const fragmentPath = join(path, `fragments[${index}]`);
      const fragment = objectAt(value, fragmentPath);
      fragments.set(stringAt(fragment.fragment, join(fragmentPath, "fragment")), { value: fragment, path: fragmentPath });
    });
    const align: Mdast.AlignType[] = [];
    const header: Mdast.TableCell = { type: "tableCell", children: [] };
    const headerRow: Mdast.TableRow = { type: "tableRow", children: [] };
    for (const id of columns) {
      const columnPath = join(path, `data.definition.${id}`);
      const column = objectAt(definition[id] ?? {}, columnPath);
      const title = column.title === undefined ? "" : stringAt(column.title, join(columnPath, "title"));
      align.push(ALIGN[typeof column.textAlignment === "string" ? column.textAlignment : "left"] ?? null);
      headerRow.children.push({ ...header, children: title === "" ? [] : [{ type: "text", value: title }] });
    }
    const rows = Object.entries(records)
      .map(([rowId, value]) => ({ rowId, record: objectAt(value, join(path, `data.records.${rowId}`)) }))
      .sort((a, b) => orderOf(a.record).localeCompare(orderOf(b.record)) || a.rowId.localeCompare(b.rowId));
    const bodyRows = rows.map(({ rowId, record }): Mdast.TableRow => {
      const values = objectAt(record.values ?? {}, join(path, `data.records.${rowId}.values`));
      return {
        type: "tableRow",
        children: columns.map((id): Mdast.TableCell => {
          const cellValue = values[id];
          const cellPath = join(path, `data.records.${rowId}.values.${id}`);
          if (cellValue === undefined || cellValue === null) return { type: "tableCell", children: [] };
          const fragment = typeof cellValue === "string" ? fragments.get(cellValue) : undefined;
          if (fragment) return { type: "tableCell", children: this.cell(fragment.value, fragment.path) };
          if (typeof cellValue === "string" || typeof cellValue === "number" || typeof cellValue === "boolean") {
            return { type: "tableCell", children: [{ type: "text", value: String(cellValue) }] };
          }
          return fail(cellPath, "a table cell must be a fragment name, a string, a number or a boolean");
        }),
      };
    });
    return { type: "table", align, children: [headerRow, ...bodyRows] };
  }

  /** A cell's fragment: paragraphs, joined by a space (a markdown cell is one line). */
  private cell(fragment: Json, path: string): Mdast.PhrasingContent[] {
    const out: Mdast.PhrasingContent[] = [];
    for (const { value, path: blockPath } of childrenOf(fragment, path)) {
      const block = objectAt(value, blockPath);
      if (block.object !== "block" || block.type !== "paragraph") {
        fail(blockPath, `a table cell holds paragraphs only, not ${JSON.stringify(block.type)}`);
      }
      if (out.length > 0) out.push({ type: "text", value: " " });
      out.push(...this.inlines(block, blockPath).map((child) => (child.type === "text" ? { ...child, value: child.value.replace(/\n/g, " ") } : child)));
    }
    return out;
  }

  // ── inlines ───────────────────────────────────────────────────────────────────────────────

  inlines(parent: Json, path: string): Mdast.PhrasingContent[] {
    const leaves: { marks: MarkType[]; node: Mdast.PhrasingContent }[] = [];
    for (const { value, path: childPath } of childrenOf(parent, path)) {
      const node = objectAt(value, childPath);
      if (node.object === "text") {
        arrayAt(node.leaves, join(childPath, "leaves")).forEach((leafValue, index) => {
          const leafPath = join(childPath, `leaves[${index}]`);
          const leaf = objectAt(leafValue, leafPath);
          if (leaf.object !== undefined && leaf.object !== "leaf") fail(leafPath, `must be a leaf (object "leaf")`);
          const text = stringAt(leaf.text, join(leafPath, "text"));
          const marks = this.marks(leaf.marks ?? [], join(leafPath, "marks"));
          if (text === "") return;
          leaves.push({
            marks: marks.filter((type) => type !== "code"),
            node: marks.includes("code") ? { type: "inlineCode", value: text } : { type: "text", value: text },
          });
        });
      } else if (node.object === "inline") {
        leaves.push({ marks: [], node: this.inline(node, childPath) });
      } else {
        fail(childPath, `must be text or an inline (object "text" or "inline"), not ${JSON.stringify(node.object)}`);
      }
    }
    return nest(leaves);
  }

  private marks(value: unknown, path: string): MarkType[] {
    const types: MarkType[] = [];
    arrayAt(value, path).forEach((markValue, index) => {
      const markPath = `${path}[${index}]`;
      const type = objectAt(markValue, markPath).type;
      if (!MARKS.includes(type as MarkType)) fail(markPath, `mark type ${JSON.stringify(type)} is not supported`);
      if (!types.includes(type as MarkType)) types.push(type as MarkType);
    });
    return types;
  }

  private inline(node: Json, path: string): Mdast.PhrasingContent {
    if (nestingOf(path) > MAX_DOCUMENT_NESTING) fail(path, `inlines nest at most ${MAX_DOCUMENT_NESTING} levels deep`);
    const type = stringAt(node.type, join(path, "type"));
    const data = dataOf(node, path);
    switch (type) {
      case "link": {
        const url = urlOf(data.ref, join(path, "data.ref"), false);
        const children = this.inlines(node, path);
        return { type: "link", url, children: children.length > 0 ? children : [{ type: "text", value: url }] };
      }
      case "inline-image":
        return this.image(data, path);
      case "inline-math":
        return { type: "inlineMath", value: stringAt(data.formula, join(path, "data.formula")) };
      default:
        return fail(path, `inline type ${JSON.stringify(type)} is not supported`);
    }
  }
}

/** `$$$formula$$$` (a run of `$` longer than any in the formula, padded where the formula starts or ends with `$`), written as is. */
function loneInlineFormula(formula: string): Mdast.Html {
  const value = formula.replace(/\r?\n/g, " ");
  const longest = Math.max(0, ...(value.match(/\$+/g) ?? []).map((run) => run.length));
  const fence = "$".repeat(Math.max(3, longest + 1));
  const padded = /^\$|\$$/.test(value) || (value.startsWith(" ") && value.endsWith(" ")) ? ` ${value} ` : value;
  return { type: "html", value: `${fence}${padded}${fence}` };
}

const MARK_NODE: Record<Exclude<MarkType, "code">, "strong" | "emphasis" | "delete"> = { bold: "strong", italic: "emphasis", strikethrough: "delete" };

/** Runs of leaves sharing a mark become one mark node, outer marks (listed first) outside. */
function nest(leaves: { marks: MarkType[]; node: Mdast.PhrasingContent }[]): Mdast.PhrasingContent[] {
  const out: Mdast.PhrasingContent[] = [];
  let index = 0;
  while (index < leaves.length) {
    const current = leaves[index]!;
    const outer = current.marks[0] as Exclude<MarkType, "code"> | undefined;
    if (!outer) {
      const last = out[out.length - 1];
      if (last?.type === "text" && current.node.type === "text") last.value += current.node.value;
      else out.push(current.node.type === "text" ? { ...current.node } : current.node);
      index++;
      continue;
    }
    let end = index;
    while (end < leaves.length && leaves[end]!.marks.includes(outer)) end++;
    const inner = nest(leaves.slice(index, end).map((leaf) => ({ ...leaf, marks: leaf.marks.filter((type) => type !== outer) })));
    out.push({ type: MARK_NODE[outer], children: inner });
    index = end;
  }
  return out;
}

/** A paragraph with no text at all (an empty list item's). */
function isEmptyParagraph(block: Mdast.BlockContent): boolean {
  return block.type === "paragraph" && block.children.every((child) => child.type === "text" && child.value === "");
}

/** GitBook JSON document → markdown (CommonMark + GFM); throws `DocumentConversionError` naming the first node it cannot express. */
export function documentToMarkdown(document: JsonDocument): string {
  const root = objectAt(document, "");
  if (root.object !== "document") fail("object", 'must be "document"');
  const children = new Writer().blocks(root, "", "document");
  return toMarkdown(
    { type: "root", children },
    {
      extensions: [gfmToMarkdown(), mathToMarkdown({ singleDollarTextMath: false })],
      bullet: "-",
      bulletOther: "+",
      emphasis: "*",
      rule: "*",
      fences: true,
      listItemIndent: "one",
      unsafe: UNSAFE,
      join: [joinTabMarkers],
    },
  );
}
