import type { Element, ElementContent } from "hast";
import { toHtml } from "hast-util-to-html";
import { h } from "hastscript";
import GithubSlugger from "github-slugger";
import { common, createLowlight } from "lowlight";
import { formulaToHast } from "./math.js";
import type { ContentRef, DocumentBlock, DocumentFragment, DocumentInline, DocumentLeaf, InlineContent, JsonDocument } from "./document.js";

/**
 * GitBook's JSON document → HTML, for the reader: one hast tree built from the document model
 * (never from raw HTML in the source: every text is escaped by the serializer), code highlighted
 * on the server (highlight.js's common languages through lowlight), headings with stable anchors.
 * Tabs, expandables, embeds and math render without script: tabs as sections with their titles
 * (the reader's script may enhance them into a tab widget), expandables as `<details>`, embeds as
 * a link card, math as MathML (KaTeX, math.ts); steppers as an ordered list of steps, cards
 * (`content-ref`) as a link, files as a download link, mermaid code as its source in
 * `<pre class="mermaid">` (`hasDiagram`: the reader then loads the script that draws it), OpenAPI
 * operations as the caller renders them (else their method and path).
 * The input is untrusted: a block type the model does not know renders its text (and is reported
 * through `onUnknownBlock`), malformed nodes are skipped, and only http(s), mailto, relative and
 * anchor URLs are ever emitted.
 */

/**
 * The only inline styles the HTML carries: a table column's alignment, as `style` attributes. A
 * page's Content-Security-Policy allows exactly these (by hash), no other inline style.
 */
export const TABLE_ALIGNMENT_STYLES = { center: "text-align: center", right: "text-align: right" } as const;

/** A heading of the document, for a table of contents. */
export interface TocEntry {
  /** The heading's anchor id in the HTML. */
  id: string;
  title: string;
  /** 1, 2 or 3: the heading's level under the page's title (the body's shallowest heading is 1, as its <h2>). */
  depth: number;
}

export interface HtmlOptions {
  /**
   * The URL a reference leads to: a page, a file or an anchor of the same revision (or a URL);
   * null leaves the text unlinked (a page the reader may not see, a file that does not exist).
   */
  resolveRef(ref: ContentRef): string | null;
  /** What a card (`content-ref`) pointing at `ref` is called (a page's title); without it, or null, the card shows its URL. */
  titleOf?(ref: ContentRef): string | null;
  /**
   * An OpenAPI block (`swagger`, `openapi-operation`, `openapi-schemas`, `openapi-webhook`) as the
   * caller renders it (the reader, from the spec it names); without it, or when it answers null, the
   * operation's method and path (a link to its spec when that is a URL or a file), the schemas'
   * names, the webhook's method and name.
   */
  renderOpenApiBlock?(block: DocumentBlock): ElementContent | null;
  /**
   * Whether a conditional block (`if`, GitBook's adaptive content) shows its blocks: the caller
   * evaluates `expression` for its visitor (`evaluateCondition`). Without it, every conditional
   * block shows nothing (what a visitor may not see is never rendered by default).
   */
  showIf?(expression: string): boolean;
  /** Told once per document of each block type this model does not know (rendered as its text), so the caller can log it. */
  onUnknownBlock?(type: string): void;
  /**
   * The document a `reusable-content` block shows (GitBook's reusable content, `space` set when it
   * is another space's); without it, or null (unknown, or not to be shown), the block shows nothing.
   */
  reusableContent?(ref: ReusableContentRef): JsonDocument | null;
  /** The words the HTML shows of its own (labels of task boxes, file links, heading anchors): the caller's, in the page's language; English without. */
  words?: HtmlWords;
}

/** The few words the body's HTML adds to the document's own text. */
export interface HtmlWords {
  /** A task list's box, done and not. */
  taskDone: string;
  taskToDo: string;
  /** A file block's link, with the file's name, or when it has none. */
  download: (name: string) => string;
  downloadFile: string;
  /** A heading's `#` anchor link. */
  linkTo: (heading: string) => string;
  /** The locale updates' dates are written in (BCP 47, e.g. "fr-FR"). */
  dateLocale: string;
  /** The name of an update's list of tags. */
  tags: string;
  /** A drawing's image, when the document gives it no alt text. */
  drawing: string;
}

const ENGLISH_WORDS: HtmlWords = {
  taskDone: "done",
  taskToDo: "to do",
  download: (name) => `Download ${name}`,
  downloadFile: "Download the file",
  linkTo: (heading) => `Link to ${heading}`,
  dateLocale: "en-US",
  tags: "Tags",
  drawing: "Drawing",
};

/** What a `reusable-content` block points at. */
export interface ReusableContentRef {
  reusableContent: string;
  space?: string;
}

/** A reusable-content block's reference, when it is one. */
function reusableRefOf(block: { data?: unknown }): ReusableContentRef | undefined {
  const ref = (block.data as { ref?: { kind?: unknown; reusableContent?: unknown; space?: unknown } } | undefined)?.ref;
  if (ref?.kind !== "reusable-content" || typeof ref.reusableContent !== "string" || ref.reusableContent === "") return undefined;
  return typeof ref.space === "string" && ref.space !== ""
    ? { reusableContent: ref.reusableContent, space: ref.space }
    : { reusableContent: ref.reusableContent };
}

/** Whether a conditional (`if`) block shows its blocks to the caller's visitor (never without `showIf`). */
function isShown(block: { data?: unknown }, options: HtmlOptions): boolean {
  const expression = (block.data as { expression?: unknown } | undefined)?.expression;
  return typeof expression === "string" && options.showIf?.(expression) === true;
}

function nodesOfDocument(document: JsonDocument | null | undefined): unknown[] {
  return document && typeof document === "object" && Array.isArray(document.nodes) ? document.nodes : [];
}

export interface HtmlResult {
  html: string;
  toc: TocEntry[];
  /** Whether the HTML holds a mermaid diagram (`<pre class="mermaid">`): only then does a page need the script that draws it. */
  hasDiagram: boolean;
}

const lowlight = createLowlight(common);
/** Code longer than this is shown unhighlighted (highlighting is linear, but a page must stay fast). */
const MAX_HIGHLIGHTED_CHARACTERS = 100_000;
const HINT_STYLES = new Set(["info", "success", "warning", "danger"]);
const SAFE_SCHEME = /^(https?:|mailto:)/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The URL as given when it is safe to emit (http(s), mailto, relative, anchor); null otherwise. */
export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  // Control characters and whitespace inside a scheme are how `java\tscript:` slips through.
  if (trimmed === "" || [...trimmed].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) return null;
  if (SAFE_SCHEME.test(trimmed)) return trimmed;
  if (ANY_SCHEME.test(trimmed) || trimmed.startsWith("//")) return null;
  return trimmed;
}

function textOf(nodes: readonly unknown[] | undefined): string {
  let text = "";
  for (const node of nodes ?? []) {
    if (!node || typeof node !== "object") continue;
    const record = node as { object?: string; leaves?: DocumentLeaf[]; nodes?: unknown[] };
    if (record.object === "text") text += (record.leaves ?? []).map((leaf) => leaf.text).join("");
    else if (Array.isArray(record.nodes)) text += textOf(record.nodes);
  }
  return text;
}

class Renderer {
  readonly toc: TocEntry[] = [];
  hasDiagram = false;
  private readonly slugger = new GithubSlugger();
  private readonly usedIds = new Set<string>();
  private readonly unknownTypes = new Set<string>();
  /** The reusable contents being rendered, outermost first: one that includes itself shows nothing the second time. */
  private readonly including = new Set<string>();
  private readonly words: HtmlWords;

  constructor(
    private readonly options: HtmlOptions,
    /** The depth of the body's shallowest heading: it renders as <h2>, the next as <h3>, so no level is skipped under the page's <h1>. */
    private readonly topHeading = 1,
  ) {
    this.words = options.words ?? ENGLISH_WORDS;
  }

  private link(ref: ContentRef | undefined): string | null {
    if (!ref || typeof ref !== "object") return null;
    if (ref.kind === "url") return typeof ref.url === "string" ? safeUrl(ref.url) : null;
    const resolved = this.options.resolveRef(ref);
    return resolved === null ? null : safeUrl(resolved);
  }

  blocks(nodes: readonly unknown[] | undefined, fragments: readonly DocumentFragment[] = []): ElementContent[] {
    const out: ElementContent[] = [];
    for (const node of nodes ?? []) {
      const block = node as DocumentBlock;
      if (!block || block.object !== "block") continue;
      const rendered = this.block(block, fragments);
      if (rendered) out.push(rendered);
    }
    return out;
  }

  private block(block: DocumentBlock, fragments: readonly DocumentFragment[]): ElementContent | null {
    const children = block.nodes ?? [];
    switch (block.type) {
      case "paragraph":
        return h("p", this.inlines(children));
      case "heading-1":
      case "heading-2":
      case "heading-3":
        return this.heading(block);
      case "list-unordered":
        return h("ul", this.blocks(children));
      case "list-ordered": {
        const start = Number((block.data as { start?: unknown }).start);
        return h("ol", Number.isInteger(start) && start !== 1 ? { start } : {}, this.blocks(children));
      }
      case "list-tasks":
        return h("ul.tasks", this.blocks(children));
      case "list-item": {
        const checked = (block.data as { checked?: unknown }).checked;
        if (typeof checked !== "boolean") return h("li", this.blocks(children));
        return h("li.task", [
          h("input", { type: "checkbox", disabled: true, checked, "aria-label": checked ? this.words.taskDone : this.words.taskToDo }),
          ...this.blocks(children),
        ]);
      }
      case "code":
        return this.code(block);
      case "blockquote":
        return h("blockquote", this.blocks(children));
      case "hint": {
        const given = (block.data as { style?: unknown }).style;
        const style = typeof given === "string" ? given : "info";
        const kind = HINT_STYLES.has(style) ? style : "info";
        return h(`div.hint.hint-${kind}`, { role: kind === "danger" || kind === "warning" ? "alert" : "note" }, this.blocks(children));
      }
      case "divider":
        return h("hr");
      case "images":
        return h("div.images", this.blocks(children));
      case "image":
        return this.image(block);
      case "table":
        return this.table(block, [...fragments, ...(block.fragments ?? [])]);
      case "tabs":
        return h("div.tabs", this.blocks(children.filter((child) => (child as DocumentBlock | null)?.type === "tabs-item")));
      case "tabs-item": {
        // A heading-like title that is not a heading: the table of contents lists the tab's own headings only.
        const title = ((block.data ?? {}) as { title?: unknown }).title;
        return h("section.tab", [h("p.tab-title", typeof title === "string" ? title : ""), ...this.blocks(children)]);
      }
      case "expandable":
        return this.expandable(block);
      case "embed":
        return this.embed(block);
      case "math": {
        const formula = ((block.data ?? {}) as { formula?: unknown }).formula;
        return typeof formula === "string" ? h("div.math", formulaToHast(formula, true)) : null;
      }
      case "stepper":
        return h("ol.stepper", this.blocks(children.filter((child) => (child as DocumentBlock | null)?.type === "stepper-step")));
      case "stepper-step":
        return h("li.step", this.blocks(children));
      case "content-ref":
        return this.card(block);
      case "file":
        return this.file(block);
      case "reusable-content":
        return this.reusable(block);
      case "if":
        return isShown(block, this.options) ? h("div.conditional", this.blocks(children)) : null;
      case "columns":
        return h("div.columns", this.blocks(children.filter((child) => (child as DocumentBlock | null)?.type === "column")));
      case "column":
        return h("div.column", this.blocks(children));
      case "updates":
        return this.updates(block);
      case "drawing":
        return this.drawing(block);
      case "swagger":
      case "openapi-operation":
        return this.options.renderOpenApiBlock?.(block) ?? this.openApiOperation(block);
      case "openapi-schemas":
      case "openapi-webhook":
        return this.options.renderOpenApiBlock?.(block) ?? this.openApiPointer(block);
      default:
        return this.unknown(block);
    }
  }

  /**
   * A block this model does not know (GitBook's schema has more, and grows): its text still reads,
   * its blocks and inline content in order, then its fragments' blocks.
   */
  private unknown(block: DocumentBlock): Element | null {
    if (typeof block.type === "string" && !this.unknownTypes.has(block.type)) {
      this.unknownTypes.add(block.type);
      this.options.onUnknownBlock?.(block.type);
    }
    const content: ElementContent[] = [];
    let inline: unknown[] = [];
    const flush = () => {
      if (inline.length > 0) content.push(h("p", this.inlines(inline)));
      inline = [];
    };
    for (const child of Array.isArray(block.nodes) ? block.nodes : []) {
      if (!child || typeof child !== "object") continue;
      if ((child as { object?: unknown }).object === "block") {
        flush();
        content.push(...this.blocks([child]));
      } else inline.push(child);
    }
    flush();
    for (const fragment of Array.isArray(block.fragments) ? block.fragments : []) {
      if (fragment && typeof fragment === "object") content.push(...this.blocks(fragment.nodes, block.fragments));
    }
    return content.length > 0 ? h("div", content) : null;
  }

  /**
   * A changelog: each update an `<article>` headed by its date (`<time>`, in the block's format and
   * the page's language: in English full "December 25, 2025", short "Dec 25, 2025", numeric
   * "12/25/2025") and its tags, then its blocks.
   */
  private updates(block: DocumentBlock): Element {
    const format = ((block.data ?? {}) as { format?: unknown }).format;
    const options: Intl.DateTimeFormatOptions =
      format === "numeric" ? { year: "numeric", month: "numeric", day: "numeric" } : format === "short" ? { dateStyle: "medium" } : { dateStyle: "long" };
    const dates = new Intl.DateTimeFormat(this.words.dateLocale, { ...options, timeZone: "UTC" });
    const updates = (block.nodes ?? []).filter((child): child is DocumentBlock => (child as DocumentBlock | null)?.type === "update");
    return h(
      "div.updates",
      updates.map((update) => {
        const data = (update.data ?? {}) as { date?: unknown; tags?: unknown };
        const date = typeof data.date === "string" ? new Date(data.date) : null;
        const known = date !== null && !Number.isNaN(date.getTime());
        const tags = (Array.isArray(data.tags) ? data.tags : [])
          .map((tag) => (tag as { tag?: unknown } | null)?.tag)
          .filter((tag): tag is string => typeof tag === "string" && tag !== "");
        return h("article.update", [
          ...(known ? [h("p.update-date", [h("time", { dateTime: date.toISOString() }, dates.format(date))])] : []),
          ...(tags.length > 0
            ? [
                h(
                  "ul.update-tags",
                  { "aria-label": this.words.tags },
                  tags.map((tag) => h("li", tag)),
                ),
              ]
            : []),
          ...this.blocks(update.nodes),
        ]);
      }),
    );
  }

  /** A drawing: the image of its file, as an image block's (GitBook's schema gives it no alt text: "Drawing", in the page's language, unless the document carries one). */
  private drawing(block: DocumentBlock): Element | null {
    const data = (block.data ?? {}) as { ref?: ContentRef; alt?: unknown; caption?: unknown };
    const src = this.link(data.ref);
    if (!src) return null;
    const alt = typeof data.alt === "string" && data.alt.trim() !== "" ? data.alt : this.words.drawing;
    const caption = typeof data.caption === "string" && data.caption !== "" ? data.caption : null;
    return h("figure.image.drawing", [h("img", { src, alt, loading: "lazy", decoding: "async" }), ...(caption ? [h("figcaption", caption)] : [])]);
  }

  /** A card: a link to the page, file, anchor or URL it refers to, by its title when known (nothing when the reader cannot link it). */
  private card(block: DocumentBlock): Element | null {
    const ref = (block.data as { ref?: ContentRef }).ref;
    const href = this.link(ref);
    if (!href || !ref) return null;
    const title = this.options.titleOf?.(ref);
    return h("p.card", [h("a", { href }, typeof title === "string" && title.trim() !== "" ? title : href)]);
  }

  /** A reusable content's blocks, where the block stands, as part of the page (its headings in the table of contents). */
  private reusable(block: DocumentBlock): Element | null {
    const ref = reusableRefOf(block);
    const key = ref && `${ref.space ?? ""}/${ref.reusableContent}`;
    if (!ref || !key || this.including.has(key)) return null;
    const nodes = nodesOfDocument(this.options.reusableContent?.(ref));
    if (nodes.length === 0) return null;
    this.including.add(key);
    try {
      return h("div.reusable-content", this.blocks(nodes));
    } finally {
      this.including.delete(key);
    }
  }

  /** An OpenAPI operation without its spec: its method and path, a link to the spec when it has a URL. */
  private openApiOperation(block: DocumentBlock): Element | null {
    const data = (block.data ?? {}) as { method?: unknown; path?: unknown; ref?: ContentRef };
    if (typeof data.method !== "string" || typeof data.path !== "string") return null;
    const label = h("code", `${data.method.toUpperCase()} ${data.path}`);
    const href = block.type === "swagger" ? this.link(data.ref) : null;
    return h("p.openapi-operation", [href ? h("a", { href, rel: "noopener" }, [label]) : label]);
  }

  /** OpenAPI schemas or a webhook without their spec: the schemas' names, the webhook's method and name. */
  private openApiPointer(block: DocumentBlock): Element | null {
    const data = (block.data ?? {}) as { schemas?: unknown; name?: unknown; method?: unknown };
    if (block.type === "openapi-schemas") {
      const names = Array.isArray(data.schemas) ? data.schemas.filter((name): name is string => typeof name === "string" && name !== "") : [];
      return names.length > 0
        ? h(
            "p.openapi-schemas",
            names.flatMap((name, index) => [...(index > 0 ? [", "] : []), h("code", name)]),
          )
        : null;
    }
    if (typeof data.name !== "string" || typeof data.method !== "string") return null;
    return h("p.openapi-webhook", [h("code", `${data.method.toUpperCase()} ${data.name}`)]);
  }

  /** A file of the space as a download link, named by the last segment of its URL. */
  private file(block: DocumentBlock): Element | null {
    const href = this.link((block.data as { ref?: ContentRef }).ref);
    if (!href) return null;
    const segment = href.split(/[?#]/)[0]!.split("/").pop() ?? "";
    let name = segment;
    try {
      name = decodeURIComponent(segment);
    } catch {
      // A malformed escape: the segment as it is.
    }
    return h("p.file", [h("a", { href, download: "" }, name.trim() === "" ? this.words.downloadFile : this.words.download(name))]);
  }

  private heading(block: DocumentBlock): Element {
    const depth = Number(block.type.slice("heading-".length));
    const title = textOf(block.nodes);
    const given = typeof (block.data as { id?: unknown }).id === "string" ? (block.data as { id: string }).id : "";
    let id = /^[a-z0-9][a-z0-9_-]*$/i.test(given) ? given : this.slugger.slug(title) || "section";
    while (this.usedIds.has(id)) id = this.slugger.slug(id);
    this.usedIds.add(id);
    this.toc.push({ id, title, depth: depth - this.topHeading + 1 });
    // The page's title is its <h1>: the document's headings sit below it, from <h2> on.
    return h(`h${depth - this.topHeading + 2}`, { id }, [
      ...this.inlines(block.nodes ?? []),
      h("a.anchor", { href: `#${id}`, "aria-label": this.words.linkTo(title) }, "#"),
    ]);
  }

  private code(block: DocumentBlock): Element {
    const data = block.data as { syntax?: unknown; title?: unknown; lineNumbers?: unknown };
    const source = (block.nodes ?? []).map((line) => textOf((line as DocumentBlock).nodes)).join("\n");
    const syntax = typeof data.syntax === "string" ? data.syntax.toLowerCase() : "";
    if (syntax === "mermaid") {
      // The diagram's source, readable as it is; the reader's mermaid script draws it where it runs.
      this.hasDiagram = true;
      return h("figure.diagram", [h("pre.mermaid", { tabIndex: 0 }, source)]);
    }
    let code: ElementContent[] = [{ type: "text", value: source }];
    if (syntax && lowlight.registered(syntax) && source.length <= MAX_HIGHLIGHTED_CHARACTERS) {
      code = lowlight.highlight(syntax, source).children as ElementContent[];
    }
    const title = typeof data.title === "string" && data.title !== "" ? data.title : null;
    return h("figure.code", [
      ...(title ? [h("figcaption", title)] : []),
      h("pre", { tabIndex: 0 }, [h("code", { className: ["hljs", ...(syntax ? [`language-${syntax}`] : [])] }, code)]),
    ]);
  }

  /** A native disclosure widget: works without script, and the body's headings still have anchors. */
  private expandable(block: DocumentBlock): Element {
    const fragments = Array.isArray(block.fragments) ? block.fragments.filter((fragment) => fragment && typeof fragment === "object") : [];
    const nodesOf = (name: string) => {
      const nodes = fragments.find((fragment) => fragment.fragment === name)?.nodes;
      return Array.isArray(nodes) ? nodes : [];
    };
    const open = ((block.data ?? {}) as { defaultExpanded?: unknown }).defaultExpanded === true;
    return h("details.expandable", open ? { open: true } : {}, [h("summary", textOf(nodesOf("expandable-title"))), ...this.blocks(nodesOf("expandable-body"))]);
  }

  /** A link card to the embedded page (no iframe, nothing runs): http(s) URLs only, else nothing. */
  private embed(block: DocumentBlock): Element | null {
    // GitBook's schema has no caption for embeds; one a document carries anyway is shown.
    const data = (block.data ?? {}) as { url?: unknown; caption?: unknown };
    const url = typeof data.url === "string" ? safeUrl(data.url) : null;
    if (!url || !/^https?:/i.test(url)) return null;
    const caption = typeof data.caption === "string" && data.caption.trim() !== "" ? data.caption : null;
    return h("figure.embed", [h("a", { href: url, rel: "noopener" }, url), ...(caption ? [h("figcaption", caption)] : [])]);
  }

  private image(block: DocumentBlock): Element | null {
    const data = block.data as { ref?: ContentRef; alt?: unknown; caption?: unknown; width?: unknown; height?: unknown };
    const src = this.link(data.ref);
    if (!src) return null;
    const alt = typeof data.alt === "string" ? data.alt : "";
    const caption = typeof data.caption === "string" && data.caption !== "" ? data.caption : null;
    const size = Number.isInteger(data.width) && Number.isInteger(data.height) ? { width: data.width as number, height: data.height as number } : {};
    return h("figure.image", [h("img", { src, alt, loading: "lazy", decoding: "async", ...size }), ...(caption ? [h("figcaption", caption)] : [])]);
  }

  private table(block: DocumentBlock, fragments: readonly DocumentFragment[]): Element {
    const data = block.data as {
      view?: { columns?: unknown };
      definition?: Record<string, { title?: unknown; textAlignment?: unknown }>;
      records?: Record<string, { orderIndex?: unknown; values?: Record<string, unknown> }>;
    };
    const columns = Array.isArray(data.view?.columns) ? data.view.columns.filter((column): column is string => typeof column === "string") : [];
    const definition = data.definition && typeof data.definition === "object" ? data.definition : {};
    const align = (column: string) => {
      const value = definition[column]?.textAlignment;
      return value === "center" || value === "right" ? { style: TABLE_ALIGNMENT_STYLES[value] } : {};
    };
    const byFragment = new Map(fragments.map((fragment) => [fragment.fragment, fragment]));
    const order = (record: { orderIndex?: unknown } | undefined) => (typeof record?.orderIndex === "string" ? record.orderIndex : "");
    const records = Object.values(data.records && typeof data.records === "object" ? data.records : {}).sort((a, b) => order(a).localeCompare(order(b)));
    const cell = (value: unknown): ElementContent[] => {
      if (typeof value !== "string") return [];
      const fragment = byFragment.get(value);
      return fragment ? this.blocks(fragment.nodes) : [{ type: "text", value }];
    };
    return h("div.table", [
      h("table", [
        h("thead", [
          h(
            "tr",
            columns.map((column) => h("th", { scope: "col", ...align(column) }, typeof definition[column]?.title === "string" ? definition[column].title : "")),
          ),
        ]),
        h(
          "tbody",
          records.map((record) =>
            h(
              "tr",
              columns.map((column) => h("td", align(column), cell(record?.values?.[column]))),
            ),
          ),
        ),
      ]),
    ]);
  }

  inlines(nodes: readonly unknown[]): ElementContent[] {
    const out: ElementContent[] = [];
    for (const node of nodes) {
      const inline = node as InlineContent;
      if (!inline || typeof inline !== "object") continue;
      if (inline.object === "text") out.push(...(inline.leaves ?? []).map((leaf) => this.leaf(leaf)));
      else if (inline.object === "inline") {
        const rendered = this.inline(inline);
        if (rendered) out.push(...rendered);
      }
    }
    return out;
  }

  private leaf(leaf: DocumentLeaf): ElementContent {
    let node: ElementContent = { type: "text", value: typeof leaf.text === "string" ? leaf.text : "" };
    for (const mark of leaf.marks ?? []) {
      const tag =
        mark.type === "bold" ? "strong" : mark.type === "italic" ? "em" : mark.type === "code" ? "code" : mark.type === "strikethrough" ? "del" : null;
      if (tag) node = h(tag, [node]);
    }
    return node;
  }

  private inline(inline: DocumentInline): ElementContent[] | null {
    if (inline.type === "link") {
      const href = this.link(inline.data?.ref);
      const content = this.inlines(inline.nodes ?? []);
      if (!href) return content;
      const external = /^https?:/i.test(href);
      return [h("a", { href, ...(external ? { rel: "noopener" } : {}) }, content)];
    }
    if (inline.type === "inline-image") {
      const src = this.link(inline.data?.ref);
      return src ? [h("img.inline", { src, alt: typeof inline.data?.alt === "string" ? inline.data.alt : "", loading: "lazy" })] : null;
    }
    if (inline.type === "inline-math") {
      const formula = inline.data?.formula;
      return typeof formula === "string" ? [h("span.math-inline", formulaToHast(formula, false))] : null;
    }
    return null;
  }
}

/** The document as HTML (a fragment: the body of a page) and its headings. */
/** The depth (1–3) of the shallowest heading among `nodes` and their children; undefined when there is none. */
/** The shallowest heading level of the blocks, those of the reusable contents they show included. */
function shallowestHeading(nodes: readonly unknown[], options: HtmlOptions): number | undefined {
  let top: number | undefined;
  const including = new Set<string>();
  const walk = (list: readonly unknown[]) => {
    for (const node of list) {
      if (!node || typeof node !== "object") continue;
      const record = node as { type?: unknown; nodes?: unknown; fragments?: unknown; data?: unknown };
      if (record.type === "if" && !isShown(record, options)) continue;
      const match = typeof record.type === "string" ? /^heading-([123])$/.exec(record.type) : null;
      if (match) top = Math.min(top ?? 3, Number(match[1]));
      if (Array.isArray(record.nodes)) walk(record.nodes);
      if (Array.isArray(record.fragments)) walk(record.fragments);
      const ref = record.type === "reusable-content" ? reusableRefOf(record) : undefined;
      const key = ref && `${ref.space ?? ""}/${ref.reusableContent}`;
      if (ref && key && !including.has(key)) {
        including.add(key);
        walk(nodesOfDocument(options.reusableContent?.(ref)));
        including.delete(key);
      }
    }
  };
  walk(nodes);
  return top;
}

export function documentToHtml(document: JsonDocument, options: HtmlOptions): HtmlResult {
  const nodes = nodesOfDocument(document);
  const renderer = new Renderer(options, shallowestHeading(nodes, options) ?? 1);
  const html = toHtml({ type: "root", children: renderer.blocks(nodes) });
  return { html, toc: renderer.toc, hasDiagram: renderer.hasDiagram };
}
