import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import opentype, { type Font, type Glyph } from "opentype.js";

/**
 * A page's link-preview card (`og:image`): a 1200×630 PNG with the site's title and the page's, in
 * Inter, under a bar of the site's primary colour. Text is drawn as outlines from the font files
 * (opentype.js reads them), so the rasterizer (resvg, as WebAssembly: no native binary to install,
 * loaded at the first card) needs no font; characters outside the latin subset are left out. A card
 * takes some 20–50 ms of CPU: the HTTP layer keeps them.
 */

export interface CardContent {
  siteTitle: string;
  pageTitle: string;
  /** The bar's colour, #rrggbb (the site's primary colour in light mode). */
  color: string;
}

/** Changes when the card's drawing does, so cards kept or cached by their hash are drawn anew. */
const CARD_DESIGN = "1";
const WIDTH = 1200;
const HEIGHT = 630;
const MARGIN = 80;
/** The longest title drawn: past it, cut with an ellipsis (the drawing's cost stays bounded). */
const MAX_TITLE = 160;

const require = createRequire(import.meta.url);
function fontAt(file: string): Font {
  const bytes = readFileSync(require.resolve(`@fontsource/inter/files/${file}`));
  return opentype.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
const BOLD = fontAt("inter-latin-700-normal.woff");
const REGULAR = fontAt("inter-latin-400-normal.woff");

/** The hash naming a card's content: the same content, the same card. */
export function cardHash(content: CardContent): string {
  return createHash("sha256").update([CARD_DESIGN, content.siteTitle, content.pageTitle, content.color].join("\n")).digest("base64url").slice(0, 16);
}

/** Glyphs of `text` the font has (others left out), with their advances at `size`. */
function glyphsOf(font: Font, text: string, size: number): { glyph: Glyph; advance: number }[] {
  const scale = size / font.unitsPerEm;
  const glyphs: { glyph: Glyph; advance: number }[] = [];
  for (const character of text) {
    const glyph = font.charToGlyph(character);
    if (glyph.index === 0 && character !== " ") continue;
    glyphs.push({ glyph, advance: (glyph.advanceWidth ?? 0) * scale });
  }
  return glyphs;
}

const widthOf = (font: Font, text: string, size: number) => glyphsOf(font, text, size).reduce((sum, entry) => sum + entry.advance, 0);

/** `text` broken into at most `maxLines` lines no wider than `width` (words kept whole unless one alone is wider; the last line cut with "…"). */
function wrap(font: Font, text: string, size: number, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = "";
  const words = text.split(/\s+/).filter(Boolean);
  for (let index = 0; index < words.length; index++) {
    const candidate = line ? `${line} ${words[index]}` : words[index]!;
    if (widthOf(font, candidate, size) <= width || !line) {
      line = candidate;
      continue;
    }
    lines.push(line);
    line = words[index]!;
    if (lines.length === maxLines) {
      line = "";
      break;
    }
  }
  if (line) lines.push(line);
  const cut = lines.length === maxLines && words.join(" ") !== lines.join(" ");
  const fitted = lines.slice(0, maxLines).map((text) => ellipsize(font, text, size, width, false));
  if (cut && fitted.length > 0) fitted[fitted.length - 1] = ellipsize(font, fitted.at(-1)!, size, width, true);
  return fitted;
}

/** `text` shortened to fit `width`, ending with "…" when it was shortened (or `always`). */
function ellipsize(font: Font, text: string, size: number, width: number, always: boolean): string {
  if (!always && widthOf(font, text, size) <= width) return text;
  let kept = [...text];
  while (kept.length > 0 && widthOf(font, `${kept.join("")}…`, size) > width) kept = kept.slice(0, -1);
  return `${kept.join("").trimEnd()}…`;
}

/** One line of text as SVG path data, its baseline at `y`. */
function outline(font: Font, text: string, x: number, y: number, size: number): string {
  let path = "";
  let left = x;
  for (const { glyph, advance } of glyphsOf(font, text, size)) {
    path += glyph.getPath(left, y, size).toPathData(1);
    left += advance;
  }
  return path;
}

const HEX = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i;

/** The card as SVG (text as outlines). */
export function cardSvg(content: CardContent): string {
  const color = HEX.test(content.color) ? content.color : "#346DDB";
  const width = WIDTH - 2 * MARGIN;
  const title = content.pageTitle.slice(0, MAX_TITLE);
  const size = widthOf(BOLD, title, 72) > 2 * width ? 60 : 72;
  const lines = wrap(BOLD, title, size, width, 3);
  const site = ellipsize(REGULAR, content.siteTitle.slice(0, MAX_TITLE), 36, width, false);
  const top = 250;
  const titlePaths = lines.map((line, index) => outline(BOLD, line, MARGIN, top + index * size * 1.2, size)).join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/><rect width="${WIDTH}" height="20" fill="${color}"/>` +
    `<path d="${outline(REGULAR, site, MARGIN, 140, 36)}" fill="#5b5b66"/>` +
    `<path d="${titlePaths}" fill="#1d1d1f"/>` +
    `<rect x="${MARGIN}" y="${HEIGHT - 90}" width="120" height="8" rx="4" fill="${color}"/></svg>`
  );
}

let rasterizer: Promise<void> | undefined;

/**
 * resvg's wasm, once per process: `initWasm` refuses a second call, which a second evaluation of
 * this module makes (test files sharing a process); that refusal means it is ready. A failed start
 * is tried again on the next card rather than kept.
 */
function startRasterizer(): Promise<void> {
  rasterizer ??= initWasm(readFileSync(require.resolve("@resvg/resvg-wasm/index_bg.wasm"))).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith("Already initialized")) return;
    rasterizer = undefined;
    throw error;
  });
  return rasterizer;
}

/** The card as PNG. */
export async function renderCard(content: CardContent): Promise<Buffer> {
  await startRasterizer();
  const svg = new Resvg(cardSvg(content), { font: { loadSystemFonts: false } });
  try {
    const image = svg.render();
    try {
      return Buffer.from(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    svg.free();
  }
}
