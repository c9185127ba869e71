import { safeFetch, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";
import { IMPORT_TIME_LIMIT_REACHED } from "../domain/crawl.js";
import { type DownloadedImage, type ImageDownloads, type ImageLimits, imageFileName } from "../domain/images.js";

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
