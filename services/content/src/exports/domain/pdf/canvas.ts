import type { MarkType } from "@imprint/document";

/**
 * The drawing primitives the PDF export is built from, over one pdfkit document: the theme,
 * styled text runs, vertical space, bars beside content that may cross pages, images drawn once
 * and reused.
 */

export const FONT = {
  regular: "Helvetica",
  bold: "Helvetica-Bold",
  italic: "Helvetica-Oblique",
  boldItalic: "Helvetica-BoldOblique",
  mono: "Courier",
  monoBold: "Courier-Bold",
  monoItalic: "Courier-Oblique",
  monoBoldItalic: "Courier-BoldOblique",
} as const;

export const COLOR = {
  text: "#1f2328",
  muted: "#59636e",
  link: "#0969da",
  rule: "#d1d9e0",
  codeText: "#1f2328",
  codeBackground: "#f3f4f6",
  tableHeader: "#eef1f4",
  quoteBar: "#c8d1da",
} as const;

export const SIZE = {
  body: 10.5,
  code: 9,
  table: 9,
  small: 8,
  pageTitle: 22,
  partTitle: 26,
  /** heading-1, heading-2, heading-3 */
  headings: [17, 14, 12],
} as const;

/** Where blocks are laid out: a column of the page, narrowed by list items, quotes and hints. */
export interface Frame {
  x: number;
  width: number;
  /** Text colour inside quotes. */
  color: string;
  italic: boolean;
  /** Inside list items: paragraphs are closer together. */
  tight: boolean;
}

/** Where a run of text points: a web URL, or a named destination inside this PDF. */
export type LinkTarget = { url: string } | { destination: string };

export interface Run {
  text: string;
  marks: ReadonlySet<MarkType>;
  link?: LinkTarget;
}

export interface TextStyle {
  size: number;
  color: string;
  bold?: boolean;
}

/** pdfkit's parsed image (its `openImage` is missing from the type definitions). */
export interface OpenedImage {
  width: number;
  height: number;
  /** EXIF orientation of a JPEG: above 4 the image is drawn turned by a quarter. */
  orientation?: number;
}

type RunOptions = Omit<PDFKit.Mixins.TextOptions, "goTo"> & { goTo: string | null };

export class Canvas {
  constructor(readonly doc: PDFKit.PDFDocument) {}

  get top(): number {
    return this.doc.page.margins.top;
  }

  get bottom(): number {
    return this.doc.page.maxY();
  }

  /** Height of the page's writable area. */
  get contentHeight(): number {
    return this.bottom - this.top;
  }

  /** Index of the page being written (pages stay buffered until the end). */
  get pageIndex(): number {
    const range = this.doc.bufferedPageRange();
    return range.start + range.count - 1;
  }

  /** Nothing written on this page yet. */
  get atPageTop(): boolean {
    return this.doc.y <= this.top + 0.5;
  }

  /** Starts a new page unless `height` still fits on this one. */
  ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom && !this.atPageTop) this.doc.addPage();
  }

  /** Vertical space, dropped at the top of a page. */
  space(height: number): void {
    if (!this.atPageTop) this.doc.y = Math.min(this.doc.y + height, this.bottom);
  }

  fontOf(marks: ReadonlySet<MarkType>, frame: Pick<Frame, "italic">, bold = false): string {
    const isBold = bold || marks.has("bold");
    const isItalic = frame.italic || marks.has("italic");
    if (marks.has("code")) return isBold ? (isItalic ? FONT.monoBoldItalic : FONT.monoBold) : isItalic ? FONT.monoItalic : FONT.mono;
    return isBold ? (isItalic ? FONT.boldItalic : FONT.bold) : isItalic ? FONT.italic : FONT.regular;
  }

  /**
   * Styled runs as one wrapped paragraph at the frame's left edge, continuing on new pages as
   * needed. pdfkit carries a segment's options into the next one unless they are given again, so
   * every option is set on every segment (null clears a link).
   */
  runs(runs: readonly Run[], frame: Frame, style: TextStyle): void {
    const visible = runs.filter((run) => run.text !== "");
    if (visible.length === 0) return;
    const { doc } = this;
    visible.forEach((run, index) => {
      doc
        .font(this.fontOf(run.marks, frame, style.bold))
        .fontSize(style.size)
        .fillColor(run.link ? COLOR.link : style.color);
      const options: RunOptions = {
        continued: index < visible.length - 1,
        underline: run.link !== undefined,
        strike: run.marks.has("strikethrough"),
        link: run.link && "url" in run.link ? run.link.url : null,
        goTo: run.link && "destination" in run.link ? run.link.destination : null,
        lineGap: style.size * 0.25,
      };
      if (index === 0) doc.text(run.text, frame.x, doc.y, { width: frame.width, ...(options as PDFKit.Mixins.TextOptions) });
      else doc.text(run.text, options as PDFKit.Mixins.TextOptions);
    });
  }

  /** A horizontal rule across the frame. */
  rule(frame: Frame, color: string = COLOR.rule, lineWidth = 0.75): void {
    const y = this.doc.y;
    this.doc
      .save()
      .moveTo(frame.x, y)
      .lineTo(frame.x + frame.width, y)
      .lineWidth(lineWidth)
      .strokeColor(color)
      .stroke()
      .restore();
  }

  /**
   * Runs `body`, then draws a bar of `color` at `x` beside everything it wrote, on every page it
   * spans (pages are buffered, so earlier ones can still be drawn on).
   */
  async barBeside(x: number, color: string, body: () => Promise<void>): Promise<void> {
    const { doc } = this;
    const startPage = this.pageIndex;
    const startY = doc.y;
    await body();
    const endPage = this.pageIndex;
    const endY = doc.y;
    for (let page = startPage; page <= endPage; page++) {
      doc.switchToPage(page);
      const from = page === startPage ? startY : this.top;
      const to = page === endPage ? endY : this.bottom;
      if (to > from)
        doc
          .save()
          .rect(x, from, 2.5, to - from)
          .fillColor(color)
          .fill()
          .restore();
    }
    doc.switchToPage(endPage);
    doc.y = endY;
  }

  /** Parses image bytes once; drawing the result many times embeds it once. */
  openImage(bytes: Buffer): OpenedImage {
    return (this.doc as unknown as { openImage(source: Buffer): OpenedImage }).openImage(bytes);
  }

  /** Draws an opened image at the frame's left edge, `width` wide, and moves below it. */
  drawImage(image: OpenedImage, frame: Frame, width: number, height: number): void {
    this.doc.image(image as unknown as Buffer, frame.x, this.doc.y, { width, height });
    this.doc.y += height;
  }
}

/** Width × height of an opened image as drawn (turned a quarter for EXIF orientations 5 to 8). */
export function drawnSize(image: OpenedImage): { width: number; height: number } {
  return (image.orientation ?? 1) > 4 ? { width: image.height, height: image.width } : { width: image.width, height: image.height };
}
