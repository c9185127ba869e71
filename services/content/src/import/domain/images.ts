import { extname } from "node:path";

/** Bounds of the image downloads of one import. */
export interface ImageLimits {
  maxImages: number;
  /** Per image. */
  maxImageBytes: number;
  /** Sum over all images. */
  maxTotalBytes: number;
  /** Downloads running at once. */
  concurrency: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxImages: 300,
  maxImageBytes: 10 * 1024 * 1024,
  maxTotalBytes: 100 * 1024 * 1024,
  concurrency: 4,
};

export interface DownloadedImage {
  /** Key of the image (URL without fragment), as build-tree's imageKey. */
  key: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface ImageDownloads {
  images: DownloadedImage[];
  /** Images not downloaded (fetch failed or a bound was reached); their references stay URLs. */
  failed: { key: string; reason: string }[];
}

const EXTENSION_BY_TYPE: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "image/svg+xml": ".svg",
  "image/avif": ".avif",
  "image/bmp": ".bmp",
  "image/x-icon": ".ico",
  "image/vnd.microsoft.icon": ".ico",
};

/** File name for a downloaded image: its URL's last segment, cleaned, with an extension matching its type. */
export function imageFileName(url: URL, contentType: string): string {
  let segment = url.pathname.split("/").filter(Boolean).at(-1) ?? "";
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // Keep the raw segment.
  }
  // eslint-disable-next-line no-control-regex
  let name = segment.replace(/[/\\\u0000-\u001f]/g, "").trim() || "image";
  if (!extname(name) && EXTENSION_BY_TYPE[contentType]) name += EXTENSION_BY_TYPE[contentType];
  return name.length > 255 ? name.slice(-255) : name;
}
