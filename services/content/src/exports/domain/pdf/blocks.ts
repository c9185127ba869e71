import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { ContentRef, DocumentBlock, DocumentFragment, ImageRef, InlineContent, MarkType } from "@imprint/document";
import { COLOR, drawnSize, FONT, SIZE, type Canvas, type Frame, type LinkTarget, type OpenedImage, type Run, type TextStyle } from "./canvas.js";
import { printable, printableCode, printableLines } from "./text.js";

/**
 * GitBook's JSON document (see @imprint/document: every block and inline type the
 * markdown conversion produces) laid out on a Canvas: one method per block type. Blocks of types
 * this export does not know (documents may come from elsewhere) show their children, or their
 * text.
 */

/** An image as the export can show it: drawn, or named. */
export type ShownImage = { kind: "bitmap"; image: OpenedImage } | { kind: "named"; name: string } | { kind: "link"; url: string };

export interface BlockContext {
  /** Where a link of the document points in the PDF; undefined: shown as plain text. */
  linkFor(ref: ContentRef): LinkTarget | undefined;
  image(ref: ImageRef): Promise<ShownImage>;
}

const NO_MARKS: ReadonlySet<MarkType> = new Set();
const BULLETS = ["\u2022", "\u2013", "\u00b7"];
const HINT_STYLE: Record<string, { label: string; color: string }> = {
  info: { label: "Note", color: "#0969da" },
  success: { label: "Tip", color: "#1a7f37" },
  warning: { label: "Warning", color: "#9a6700" },
  danger: { label: "Danger", color: "#d1242f" },
};
const YIELD_EVERY_BLOCKS = 200;
/** CSS pixels to PDF points: images keep the size a browser shows them at, unless wider than the column. */
const POINTS_PER_PIXEL = 0.75;

/** A table field's text: strings and numbers as written, anything else empty. */
const fieldText = (value: unknown): string => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");
const body = (frame: Frame): TextStyle => ({ size: SIZE.body, color: frame.color });
const childBlocks = (node: DocumentBlock): DocumentBlock[] => (node.nodes ?? []).filter((child): child is DocumentBlock => child.object === "block");
const inlineNodes = (node: DocumentBlock): InlineContent[] => (node.nodes ?? []).filter((child): child is InlineContent => child.object !== "block");

/** The plain text of a block and everything in it. */
function textOf(node: DocumentBlock | InlineContent): string {
  if (node.object === "text") return node.leaves.map((leaf) => leaf.text).join("");
  if (node.object === "inline")
    return node.type === "link" ? node.nodes.map(textOf).join("") : node.type === "inline-math" ? node.data.formula : (node.data.alt ?? "");
  const own = (node.nodes ?? []).map(textOf);
  return node.type === "paragraph" || node.type.startsWith("heading") || node.type === "code-line"
    ? own.join("")
    : own.filter((text) => text !== "").join("\n");
}

export class BlockWriter {
  private drawn = 0;

  constructor(
    private readonly canvas: Canvas,
    private readonly context: BlockContext,
  ) {}

  async blocks(nodes: readonly DocumentBlock[], frame: Frame): Promise<void> {
    for (const node of nodes) {
      await this.block(node, frame);
      // A long page is synchronous work too: let other requests run now and then.
      if (++this.drawn % YIELD_EVERY_BLOCKS === 0) await yieldToEventLoop();
    }
  }

  private async block(node: DocumentBlock, frame: Frame): Promise<void> {
    switch (node.type) {
      case "paragraph":
        return this.paragraph(node, frame);
      case "heading-1":
      case "heading-2":
      case "heading-3":
        return this.heading(node, Number(node.type.slice(-1)) - 1, frame);
      case "list-ordered":
      case "list-unordered":
      case "list-tasks":
        return this.list(node, frame, 0);
      case "code":
        return this.code(node, frame);
      case "blockquote":
        return this.quote(node, frame);
      case "hint":
        return this.hint(node, frame);
      case "table":
        return this.table(node, frame);
      case "divider":
        return this.divider(frame);
      case "images":
        for (const image of childBlocks(node)) await this.image(image, frame);
        return;
      case "image":
        return this.image(node, frame);
      default: {
        const children = childBlocks(node);
        if (children.length > 0) return this.blocks(children, frame);
        const text = textOf(node);
        if (text.trim() !== "") this.textParagraph([{ text: printableLines(text), marks: NO_MARKS }], frame);
      }
    }
  }

  // ── text ──────────────────────────────────────────────────────────────────────────────────

  /** Inline content → styled runs: marks from the leaves, links resolved, inline images by name. */
  runsOf(nodes: readonly InlineContent[], link?: LinkTarget): Run[] {
    const runs: Run[] = [];
    for (const node of nodes) {
      if (node.object === "text") {
        for (const leaf of node.leaves)
          runs.push({ text: printableLines(leaf.text), marks: new Set(leaf.marks.map((mark) => mark.type)), ...(link ? { link } : {}) });
      } else if (node.type === "link") {
        runs.push(...this.runsOf(node.nodes, this.context.linkFor(node.data.ref) ?? link));
      } else if (node.type === "inline-math") {
        // The PDF draws no math: the formula's TeX, as code.
        runs.push({ text: printable(node.data.formula), marks: new Set(["code"]), ...(link ? { link } : {}) });
      } else {
        const label = node.data.alt || (node.data.ref.kind === "url" ? node.data.ref.url : "image");
        runs.push({ text: `[${printable(label)}]`, marks: new Set(["italic"]), ...(link ? { link } : {}) });
      }
    }
    return runs;
  }

  private textParagraph(runs: readonly Run[], frame: Frame): void {
    this.canvas.runs(runs, frame, body(frame));
    this.canvas.space(frame.tight ? 2 : SIZE.body * 0.6);
  }

  private paragraph(node: DocumentBlock, frame: Frame): void {
    this.textParagraph(this.runsOf(inlineNodes(node)), frame);
  }

  private heading(node: DocumentBlock, level: number, frame: Frame): void {
    const size = SIZE.headings[level] ?? SIZE.body;
    this.canvas.space(size * 0.5);
    // A heading never ends a page: it stays with at least two lines of what follows.
    this.canvas.ensureSpace(size * 1.4 + SIZE.body * 3);
    this.canvas.runs(this.runsOf(inlineNodes(node)), frame, { size, color: COLOR.text, bold: true });
    this.canvas.space(size * 0.35);
  }

  // ── lists ─────────────────────────────────────────────────────────────────────────────────

  private async list(node: DocumentBlock, frame: Frame, depth: number): Promise<void> {
    const { doc } = this.canvas;
    const items = childBlocks(node);
    const start = typeof node.data.start === "number" ? node.data.start : 1;
    const marker = (index: number) => (node.type === "list-ordered" ? `${start + index}.` : BULLETS[depth % BULLETS.length]!);
    doc.font(FONT.regular).fontSize(SIZE.body);
    const markerWidth = node.type === "list-ordered" ? doc.widthOfString(marker(items.length - 1)) + 6 : 14;
    for (const [index, item] of items.entries()) {
      this.canvas.ensureSpace(SIZE.body * 1.4);
      const y = doc.y;
      if (node.type === "list-tasks") this.checkbox(frame.x, y, item.data.checked === true);
      else doc.font(FONT.regular).fontSize(SIZE.body).fillColor(frame.color).text(marker(index), frame.x, y, { width: markerWidth, lineBreak: false });
      doc.y = y;
      const inner: Frame = { ...frame, x: frame.x + markerWidth, width: frame.width - markerWidth, tight: true };
      for (const child of childBlocks(item)) {
        if (child.type === "list-ordered" || child.type === "list-unordered" || child.type === "list-tasks") await this.list(child, inner, depth + 1);
        else await this.block(child, inner);
      }
      // An item holding nothing still takes its line.
      if (doc.y === y) doc.y += SIZE.body * 1.25;
    }
    this.canvas.space(frame.tight ? 0 : SIZE.body * 0.5);
  }

  private checkbox(x: number, y: number, checked: boolean): void {
    const { doc } = this.canvas;
    const size = SIZE.body * 0.8;
    const top = y + 1.5;
    doc.save().lineWidth(0.8).strokeColor(COLOR.muted).rect(x, top, size, size).stroke();
    if (checked) {
      doc
        .moveTo(x + size * 0.2, top + size * 0.55)
        .lineTo(x + size * 0.42, top + size * 0.78)
        .lineTo(x + size * 0.82, top + size * 0.22)
        .lineWidth(1.2)
        .stroke();
    }
    doc.restore();
  }

  // ── code ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A shaded box of monospace lines, long lines wrapped. Drawn line by line, each line's shade
   * first, so a block longer than a page simply continues on the next one.
   */
  private code(node: DocumentBlock, frame: Frame): void {
    const { doc } = this.canvas;
    const padding = 6;
    const lines = childBlocks(node).map((line) => printableCode(textOf(line)));
    if (lines.length === 0) return;
    const innerWidth = frame.width - 2 * padding;
    this.canvas.space(2);
    doc.font(FONT.mono).fontSize(SIZE.code);
    const lineGap = 1.5;
    lines.forEach((line, index) => {
      const text = line === "" ? " " : line;
      const first = index === 0;
      const last = index === lines.length - 1;
      const height = doc.heightOfString(text, { width: innerWidth, lineGap });
      this.canvas.ensureSpace(height + (first ? padding : 0) + (last ? padding : 0));
      const startsBox = first || this.canvas.atPageTop;
      if (startsBox) doc.y += padding;
      const top = doc.y - (startsBox ? padding : 0);
      const bottom = doc.y + height + (last ? padding : 0);
      doc
        .save()
        .rect(frame.x, top, frame.width, bottom - top)
        .fillColor(COLOR.codeBackground)
        .fill()
        .restore();
      doc
        .font(FONT.mono)
        .fontSize(SIZE.code)
        .fillColor(COLOR.codeText)
        .text(text, frame.x + padding, doc.y, { width: innerWidth, lineGap });
      if (last) doc.y += padding;
    });
    this.canvas.space(SIZE.body * 0.6);
  }

  // ── quotes and hints ──────────────────────────────────────────────────────────────────────

  private async quote(node: DocumentBlock, frame: Frame): Promise<void> {
    const inner: Frame = { ...frame, x: frame.x + 12, width: frame.width - 12, color: COLOR.muted, italic: true };
    await this.canvas.barBeside(frame.x, COLOR.quoteBar, () => this.blocks(childBlocks(node), inner));
    this.canvas.space(SIZE.body * 0.4);
  }

  private async hint(node: DocumentBlock, frame: Frame): Promise<void> {
    const style = HINT_STYLE[String(node.data.style)] ?? HINT_STYLE.info!;
    const inner: Frame = { ...frame, x: frame.x + 12, width: frame.width - 12 };
    this.canvas.ensureSpace(SIZE.body * 3);
    await this.canvas.barBeside(frame.x, style.color, async () => {
      this.canvas.runs([{ text: style.label, marks: NO_MARKS }], inner, { size: SIZE.small + 1, color: style.color, bold: true });
      this.canvas.space(2);
      await this.blocks(childBlocks(node), inner);
    });
    this.canvas.space(SIZE.body * 0.4);
  }

  // ── tables ────────────────────────────────────────────────────────────────────────────────

  /**
   * GitBook's table block: columns by id (`view.columns`, titles and alignment in `definition`),
   * records ordered by `orderIndex`, each cell's content in the fragment its value names. Drawn
   * as a grid with a shaded header row; rows move to the next page whole, and a cell taller than
   * a page is cut with an ellipsis.
   */
  private table(node: DocumentBlock, frame: Frame): void {
    const data = node.data as {
      view?: { columns?: unknown; hideHeader?: unknown };
      definition?: Record<string, { title?: unknown; type?: unknown; textAlignment?: unknown } | undefined>;
      records?: Record<string, { orderIndex?: unknown; values?: Record<string, unknown> } | undefined>;
    };
    const columns = Array.isArray(data.view?.columns) ? data.view.columns.filter((id): id is string => typeof id === "string") : [];
    if (columns.length === 0) return;
    const fragments = new Map((node.fragments ?? []).map((fragment: DocumentFragment) => [fragment.fragment, fragment]));
    // Text columns name the fragment holding each cell's rich text; other columns hold values.
    const cellText = (id: string, value: unknown): string => {
      if (data.definition?.[id]?.type === "text") {
        const fragment = typeof value === "string" ? fragments.get(value) : undefined;
        return fragment ? printableLines(fragment.nodes.map(textOf).join("\n")) : "";
      }
      return typeof value === "boolean" ? (value ? "Yes" : "No") : printableLines(fieldText(value));
    };
    const alignOf = (id: string): "left" | "center" | "right" => {
      const alignment = data.definition?.[id]?.textAlignment;
      return alignment === "center" || alignment === "right" ? alignment : "left";
    };
    const records = Object.values(data.records ?? {})
      .filter((record) => record !== undefined)
      .map((record) => ({ order: fieldText(record.orderIndex), record }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
      .map(({ record }) => record);
    const header =
      data.view?.hideHeader === true
        ? []
        : [columns.map((id) => ({ text: printable(fieldText(data.definition?.[id]?.title)), font: { src: FONT.bold }, align: { x: alignOf(id) } }))];
    const rows = records.map((record) => columns.map((id) => ({ text: cellText(id, record.values?.[id]), align: { x: alignOf(id) } })));
    if (header.length + rows.length === 0) return;

    const { doc } = this.canvas;
    this.canvas.space(2);
    this.canvas.ensureSpace(SIZE.table * 3);
    doc.font(FONT.regular).fontSize(SIZE.table).fillColor(COLOR.text);
    doc.table({
      position: { x: frame.x, y: doc.y },
      maxWidth: frame.width,
      columnStyles: columns.map(() => "*"),
      rowStyles: (row) => ({ maxHeight: this.canvas.contentHeight - 1, ...(row === 0 && header.length > 0 ? { backgroundColor: COLOR.tableHeader } : {}) }),
      defaultStyle: { border: 0.5, borderColor: COLOR.rule, padding: 4, textOptions: { ellipsis: true } },
      data: [...header, ...rows],
    });
    this.canvas.space(SIZE.body * 0.8);
  }

  // ── dividers and images ───────────────────────────────────────────────────────────────────

  private divider(frame: Frame): void {
    this.canvas.space(6);
    this.canvas.ensureSpace(12);
    this.canvas.rule(frame);
    this.canvas.doc.y += 10;
  }

  /**
   * A file image is drawn at its natural size, scaled down to the column's width and a page's
   * height; other images are named (files of other types) or given as a link (images on the web
   * are never fetched). A caption follows in small type.
   */
  private async image(node: DocumentBlock, frame: Frame): Promise<void> {
    const ref = node.data.ref as ImageRef | undefined;
    if (!ref) return;
    const shown = await this.context.image(ref);
    const caption = typeof node.data.caption === "string" ? node.data.caption : "";
    const alt = typeof node.data.alt === "string" ? node.data.alt : "";
    const small = { size: SIZE.small + 1, color: COLOR.muted };
    if (shown.kind === "bitmap") {
      const natural = drawnSize(shown.image);
      const scale = Math.min(POINTS_PER_PIXEL, frame.width / natural.width, (this.canvas.contentHeight - 4) / natural.height);
      const width = natural.width * scale;
      const height = natural.height * scale;
      this.canvas.space(4);
      this.canvas.ensureSpace(height);
      this.canvas.drawImage(shown.image, frame, width, height);
      this.canvas.space(4);
    } else if (shown.kind === "named") {
      this.canvas.runs([{ text: `[image: ${printable(shown.name)}]`, marks: new Set(["italic"]) }], frame, small);
      this.canvas.space(4);
    } else {
      this.canvas.runs(
        [
          { text: `Image${alt ? ` (${printable(alt)})` : ""}: `, marks: NO_MARKS },
          { text: printable(shown.url), marks: NO_MARKS, ...(/^https?:\/\//i.test(shown.url) ? { link: { url: shown.url } } : {}) },
        ],
        frame,
        small,
      );
      this.canvas.space(4);
    }
    if (caption) {
      this.canvas.runs([{ text: printable(caption), marks: new Set(["italic"]) }], frame, small);
      this.canvas.space(6);
    }
  }
}
