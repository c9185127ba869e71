import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { AppError } from "@imprint/runtime";
import type { ContentRef, ImageRef, JsonDocument } from "@imprint/document";
import { drawableBitmap } from "./bitmaps.js";
import { BlockWriter, type ShownImage } from "./blocks.js";
import { Canvas, COLOR, FONT, SIZE, type Frame, type LinkTarget } from "./canvas.js";
import { printable } from "./text.js";

/**
 * Content → PDF. Pages follow one another in tree order: a document page starts a new PDF page
 * with its title (and description) above its body; a group is a part title on a page of its own;
 * a link page is one line with its URL. Every page has a bookmark in the document outline, nested
 * like the page tree, and a named destination that links to the page jump to. Pages are numbered
 * in the footer.
 */

export type ExportPageType = "document" | "group" | "link";

export interface ExportPage {
  pageId: string;
  type: ExportPageType;
  title: string;
  description: string;
  /** Link pages: where they point. */
  href: string | null;
  /** 0 for the top of the export; sub-pages one deeper than their parent. */
  depth: number;
}

/** Where the renderer reads what it draws (pages of the caller's own type come back to it). */
export interface ExportSource<Page extends ExportPage = ExportPage> {
  /** The PDF's title (document information). */
  title: string;
  pages: readonly Page[];
  /** The bodies of these pages, by page id (pages without a body are absent). */
  documents(pages: readonly Page[]): Promise<Map<string, JsonDocument>>;
  /** The bytes of a file used as an image when they may be drawn (PNG, JPEG), else just its name; undefined for a missing file. */
  fileImage(fileId: string): Promise<{ name: string; bytes?: Buffer } | undefined>;
}

/** Bodies are read this many pages at a time, so memory holds one batch of documents. */
const DOCUMENT_BATCH = 50;
const MARGIN = 56;
const WEB_LINK = /^(https?:|mailto:)/i;

const destinationOf = (pageId: string) => `page-${pageId}`;

export interface RenderOptions {
  createdAt: Date;
  /** The PDF may not grow beyond this: rendering stops as soon as its output does. */
  maxBytes: number;
}

const MIB = 1024 * 1024;

export async function renderPdf<Page extends ExportPage>(source: ExportSource<Page>, options: RenderOptions): Promise<Buffer> {
  // Loaded by the first export, not at start-up: pdfkit and its fonts take some 30 MB of a process that may never export.
  const { default: PDFDocument } = await import("pdfkit");
  const doc = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    bufferPages: true,
    // Document information and bookmarks are PDF text strings (Unicode), not drawn with the fonts.
    info: { Title: source.title, Creator: "Imprint", CreationDate: options.createdAt },
  });
  const chunks: Buffer[] = [];
  let size = 0;
  doc.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  const checkSize = () => {
    if (size > options.maxBytes) {
      throw new AppError(
        "failed_precondition",
        `content: the PDF would be larger than ${options.maxBytes / MIB} MiB, the most that can be downloaded; export fewer pages`,
      );
    }
  };
  const finished = new Promise<void>((resolve, reject) => {
    doc.on("end", resolve);
    doc.on("error", reject);
  });

  const canvas = new Canvas(doc);
  const inExport = new Set(source.pages.filter((page) => page.type !== "link").map((page) => page.pageId));
  const images = new Map<string, Promise<ShownImage>>();
  let currentPageId = "";

  const linkFor = (ref: ContentRef): LinkTarget | undefined => {
    switch (ref.kind) {
      case "url":
        return WEB_LINK.test(ref.url) ? { url: ref.url } : undefined;
      case "page":
        return inExport.has(ref.page) ? { destination: destinationOf(ref.page) } : undefined;
      case "anchor": {
        const page = ref.page ?? currentPageId;
        return inExport.has(page) ? { destination: destinationOf(page) } : undefined;
      }
      default:
        // A file's URL is signed and expires: it does not belong in a document meant to last.
        return undefined;
    }
  };
  const fileImage = async (fileId: string): Promise<ShownImage> => {
    const file = await source.fileImage(fileId);
    if (!file) return { kind: "named", name: "missing image" };
    if (!file.bytes || !drawableBitmap(file.bytes)) return { kind: "named", name: file.name };
    try {
      return { kind: "bitmap", image: canvas.openImage(file.bytes) };
    } catch {
      return { kind: "named", name: file.name };
    }
  };
  const image = (ref: ImageRef): Promise<ShownImage> => {
    if (ref.kind === "url") return Promise.resolve({ kind: "link", url: ref.url });
    let shown = images.get(ref.file);
    if (!shown) {
      shown = fileImage(ref.file);
      images.set(ref.file, shown);
    }
    return shown;
  };
  const writer = new BlockWriter(canvas, { linkFor, image });

  const column = (): Frame => ({ x: MARGIN, width: doc.page.width - 2 * MARGIN, color: COLOR.text, italic: false, tight: false });
  const outlineItems: PDFKit.PDFOutline[] = [];
  const bookmark = (page: ExportPage) => {
    const parent = page.depth > 0 ? (outlineItems[page.depth - 1] ?? doc.outline) : doc.outline;
    outlineItems[page.depth] = parent.addItem(page.title.trim() || "Untitled");
    outlineItems.length = page.depth + 1;
  };

  for (let offset = 0; offset < source.pages.length; offset += DOCUMENT_BATCH) {
    const batch = source.pages.slice(offset, offset + DOCUMENT_BATCH);
    const documents = await source.documents(batch);
    for (const page of batch) {
      currentPageId = page.pageId;
      const frame = column();
      const title = printable(page.title) || "Untitled";
      if (page.type === "link") {
        canvas.ensureSpace(SIZE.body * 3);
        bookmark(page);
        const href = page.href ?? "";
        const target = linkFor({ kind: "url", url: href });
        canvas.runs(
          [
            { text: `${title}: `, marks: new Set(["bold"]) },
            { text: printable(href), marks: new Set(), ...(target ? { link: target } : {}) },
          ],
          frame,
          { size: SIZE.body, color: COLOR.text },
        );
        canvas.space(SIZE.body);
        continue;
      }
      if (!canvas.atPageTop) {
        finishPages(doc);
        checkSize();
        doc.addPage();
      }
      doc.addNamedDestination(destinationOf(page.pageId));
      bookmark(page);
      const isGroup = page.type === "group";
      // A part title sits a third of the way down its page, as in a book.
      if (isGroup) doc.y = canvas.top + canvas.contentHeight / 3;
      canvas.runs([{ text: title, marks: new Set() }], frame, { size: isGroup ? SIZE.partTitle : SIZE.pageTitle, color: COLOR.text, bold: true });
      if (page.description) {
        canvas.space(4);
        canvas.runs([{ text: printable(page.description), marks: new Set() }], frame, { size: SIZE.body + 1, color: COLOR.muted });
      }
      canvas.space(8);
      canvas.rule(frame);
      canvas.space(14);
      const body = documents.get(page.pageId);
      if (body) await writer.blocks(body.nodes, frame);
      // Rendering is synchronous work: let other requests run between pages.
      await yieldToEventLoop();
    }
  }

  finishPages(doc);
  doc.end();
  await finished;
  checkSize();
  return Buffer.concat(chunks);
}

/**
 * Numbers the pages written so far at their foot and hands them to the output. Pages stay
 * buffered while a content page is being written (a bar beside a quote is drawn on every page it
 * spans once its end is known); between content pages nothing refers to them any more, and
 * flushing keeps memory to one content page's worth of PDF pages.
 */
function finishPages(doc: PDFKit.PDFDocument): void {
  const { start, count } = doc.bufferedPageRange();
  for (let index = start; index < start + count; index++) {
    doc.switchToPage(index);
    const { margins } = doc.page;
    const bottom = margins.bottom;
    // Text below the bottom margin would otherwise start a new page.
    margins.bottom = 0;
    doc
      .font(FONT.regular)
      .fontSize(SIZE.small)
      .fillColor(COLOR.muted)
      .text(String(index + 1), margins.left, doc.page.height - bottom / 2 - SIZE.small / 2, {
        width: doc.page.width - margins.left - margins.right,
        align: "center",
        lineBreak: false,
      });
    margins.bottom = bottom;
  }
  doc.flushPages();
}
