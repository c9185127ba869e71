import { extname } from "node:path";
import { safeFetch, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";
import { IMPORT_TIME_LIMIT_REACHED } from "./crawl.js";

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

/**
 * Downloads the images (any public host: images often live on a CDN), a few at a time, within the
 * limits. A failed image is recorded, not fatal: the page keeps a link to the original URL.
 */
export async function fetchImages(
  urls: readonly URL[],
  options: {
    policy: SafeFetchPolicy;
    limits: ImageLimits;
    signal?: AbortSignal | undefined;
    /** Called after each image downloaded, with the count so far; what it throws ends the downloads. */
    onProgress?: ((downloaded: number) => Promise<void>) | undefined;
  },
): Promise<ImageDownloads> {
  const { limits } = options;
  const images: DownloadedImage[] = [];
  const failed: ImageDownloads["failed"] = [];
  const queue = urls.slice(0, limits.maxImages).map((url) => ({ url, key: url.toString() }));
  for (const url of urls.slice(limits.maxImages)) failed.push({ key: url.toString(), reason: `more than ${limits.maxImages} images` });
  let bytes = 0;

  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const budget = Math.min(limits.maxImageBytes, limits.maxTotalBytes - bytes);
      if (budget <= 0) {
        failed.push({ key: next.key, reason: "the import's image byte budget was used up" });
        continue;
      }
      try {
        const fetched = await safeFetch(next.url, options.policy, {
          signal: options.signal,
          signalReason: IMPORT_TIME_LIMIT_REACHED,
          accept: (type) => type.startsWith("image/"),
          maxBodyBytes: budget,
        });
        bytes += fetched.body.length;
        images.push({ key: next.key, name: imageFileName(fetched.url, fetched.mediaType), contentType: fetched.mediaType, bytes: fetched.body });
      } catch (error) {
        if (!(error instanceof SafeFetchError)) throw error;
        failed.push({ key: next.key, reason: error.reason });
        continue;
      }
      await options.onProgress?.(images.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limits.concurrency) }, worker));
  // Workers finish in any order; keep the order of first appearance.
  const order = new Map(urls.map((url, index) => [url.toString(), index]));
  images.sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0));
  return { images, failed };
}
