import { DEFAULT_CRAWL_LIMITS, type CrawlLimits } from "./crawl.js";
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from "./images.js";

export interface ImportLimits {
  crawl: CrawlLimits;
  images: ImageLimits;
  /** Wall-clock budget of all fetching (pages and images). */
  maxFetchDurationMs: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = { crawl: DEFAULT_CRAWL_LIMITS, images: DEFAULT_IMAGE_LIMITS, maxFetchDurationMs: 90_000 };
