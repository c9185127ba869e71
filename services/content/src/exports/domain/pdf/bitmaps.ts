import { inflateSync } from "node:zlib";

/**
 * Which image bytes the PDF may draw. pdfkit embeds PNG and JPEG; it parses their headers at once
 * (errors are thrown to us), but decodes the pixels of some PNGs (alpha channel, transparent
 * palette, interlacing) later, in a zlib callback where a corrupt stream or a bad filter byte
 * throws outside any caller and would end the process, and where a huge image allocates its
 * whole decoded size. Those PNGs are therefore decoded here first, synchronously and bounded; an
 * image that fails is shown by its name instead.
 */

/** Decoded bytes one PNG may need (pdfkit holds them while embedding): 64 MiB. */
export const MAX_DECODED_IMAGE_BYTES = 64 * 1024 * 1024;

export type BitmapFormat = "png" | "jpeg";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7 passes: x0, y0, dx, dy. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export function bitmapFormat(bytes: Buffer): BitmapFormat | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  return undefined;
}

interface PngLayout {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
  transparentPalette: boolean;
  data: Buffer;
}

/** The chunks pdfkit reads, or undefined when the file is not a complete PNG. */
function pngLayout(bytes: Buffer): PngLayout | undefined {
  let header: Omit<PngLayout, "transparentPalette" | "data"> | undefined;
  let transparentPalette = false;
  const data: Buffer[] = [];
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (body.length !== length) return undefined;
    if (type === "IHDR" && length >= 13) {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), bitDepth: body[8]!, colorType: body[9]!, interlaced: body[12] === 1 };
    } else if (type === "tRNS") {
      transparentPalette = header?.colorType === 3;
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      return header && data.length > 0 ? { ...header, transparentPalette, data: Buffer.concat(data) } : undefined;
    }
    offset += 12 + length;
  }
  return undefined;
}

/**
 * Whether pdfkit can embed this PNG without failing later: a PNG it embeds as is only needs its
 * header to parse; one it decodes must inflate within bounds and every scanline must carry a
 * filter type pdfkit knows (0 to 4), walked the way pdfkit's decoder walks them.
 */
function pngEmbedsSafely(bytes: Buffer): boolean {
  const png = pngLayout(bytes);
  const channels = png ? CHANNELS[png.colorType] : undefined;
  if (!png || channels === undefined || png.width === 0 || png.height === 0) return false;
  const decoded = png.colorType === 4 || png.colorType === 6 || png.transparentPalette || png.interlaced;
  if (!decoded) return true;
  // pdfkit's decoder works in whole bytes per pixel.
  if (png.bitDepth < 8) return false;
  const pixelBytes = (png.bitDepth * channels) / 8;
  if (png.width * png.height * pixelBytes > MAX_DECODED_IMAGE_BYTES) return false;
  const passes = png.interlaced ? ADAM7 : [[0, 0, 1, 1] as const];
  const scanlineBytes = passes.reduce((sum, [x0, y0, dx, dy]) => {
    const width = Math.max(0, Math.ceil((png.width - x0) / dx));
    const height = Math.max(0, Math.ceil((png.height - y0) / dy));
    return sum + height * (1 + width * pixelBytes);
  }, 0);
  let pixels: Buffer;
  try {
    pixels = inflateSync(png.data, { maxOutputLength: scanlineBytes });
  } catch {
    return false;
  }
  let position = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const width = Math.max(0, Math.ceil((png.width - x0) / dx));
    const height = Math.max(0, Math.ceil((png.height - y0) / dy));
    for (let row = 0; row < height && position < pixels.length; row++) {
      if (pixels[position]! > 4) return false;
      position += 1 + width * pixelBytes;
    }
  }
  return true;
}

/** PNG or JPEG bytes pdfkit can draw (see above); undefined for anything else. */
export function drawableBitmap(bytes: Buffer): BitmapFormat | undefined {
  const format = bitmapFormat(bytes);
  if (format === "png") return pngEmbedsSafely(bytes) ? "png" : undefined;
  return format;
}
