import type { PageIndex } from "../../revisions/index.js";
import type { ExtractedLink } from "./extract.js";

/** The shapes of a revision's resolved links, cached whole (see caches.ts, link-graph.ts). */

export interface ExtractionCounts {
  /** Versions whose links came from memory or the table. */
  reused: number;
  /** Versions extracted now (their bodies read) and stored. */
  extracted: number;
}

/** One link target of a revision and the pages referencing it. */
export interface LinkUsage {
  key: string;
  link: ExtractedLink;
  /** Referencing page ids, ordered by path. */
  locations: string[];
}

/**
 * Every link of one revision, resolved: built from the page index (cached per tree) and the
 * stored links of each page version, so no page body is read unless its version is new. A
 * committed revision never changes, so its graph is cached whole and every list, filter and page
 * of results is answered from memory.
 */
export interface LinkGraph {
  index: PageIndex;
  /** Every link target of the revision, ordered by key. */
  usages: LinkUsage[];
  /** Page id → the links it makes. */
  linksOf: Map<string, ExtractedLink[]>;
  /** Page id → ids of the pages linking to it (ordered by path). */
  pageBacklinks: Map<string, string[]>;
  /** File id → ids of the pages referencing it (ordered by path). */
  fileBacklinks: Map<string, string[]>;
  /** Ids of the revision's files. */
  fileIds: Set<string>;
  /** How this build got the links of each version. */
  counts: ExtractionCounts;
}
