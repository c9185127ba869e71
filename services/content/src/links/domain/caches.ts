import { type CacheBudget, CachedLoader } from "@imprint/runtime";
import type { ExtractedLink } from "./extract.js";
import type { LinkGraph } from "./model.js";

/** About what one extracted link takes in memory. */
const LINK_BYTES = 100;
/** About what one page takes in a graph beyond its links: its entry in `linksOf` and its place in the index the graph holds. */
const GRAPH_PAGE_BYTES = 700;

/** A graph's charge: its pages (with the page index it holds, which the tree caches may hold too) and its links, once in `linksOf` and once in `usages`. */
function graphBytes(graph: LinkGraph): number {
  let links = 0;
  for (const pageLinks of graph.linksOf.values()) links += pageLinks.length;
  let backlinks = 0;
  for (const pages of graph.pageBacklinks.values()) backlinks += pages.length;
  for (const pages of graph.fileBacklinks.values()) backlinks += pages.length;
  return 1024 + GRAPH_PAGE_BYTES * graph.index.byId.size + 2 * LINK_BYTES * links + 16 * backlinks + 64 * graph.fileIds.size;
}

/**
 * In-process caches of the links module, charged against the process's one budget
 * (CONTENT_CACHE_BYTES, shared with the tree caches): a 10,000-page space's graph is several
 * megabytes, and a graph is built for every commit. Extractions are keyed
 * `<storeId>:<pageVersionId>` and never go stale (versions are immutable); graphs are keyed
 * `<storeId>:<root>` (a committed revision's tree never changes, so neither does its graph).
 */
export class LinkCaches {
  /** Charged per link, at about what one takes (at least one: "no links" is worth remembering too). */
  readonly extractions: CachedLoader<ExtractedLink[]>;
  /** Whole-revision link graphs: one holds every link of a space. */
  readonly graphs: CachedLoader<LinkGraph>;

  constructor(budget: CacheBudget) {
    this.extractions = new CachedLoader<ExtractedLink[]>({ name: "link extractions", budget, bytes: (links) => LINK_BYTES * (1 + links.length) });
    this.graphs = new CachedLoader<LinkGraph>({ name: "link graphs", budget, bytes: graphBytes });
  }
}
