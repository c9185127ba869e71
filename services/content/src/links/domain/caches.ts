import { Lru } from "../../lru.js";
import type { ExtractedLink } from "./extract.js";
import type { LinkGraph } from "./model.js";

/**
 * In-process caches of the links module. Extractions are keyed `<storeId>:<pageVersionId>` and
 * never go stale (versions are immutable); graphs are keyed `<storeId>:<root>` (a committed
 * revision's tree never changes, so neither does its graph).
 */
export class LinkCaches {
  /** Weighted by the number of links (at least 1: "no links" is worth remembering too). */
  readonly extractions = new Lru<string, ExtractedLink[]>(400_000, (links) => 1 + links.length);
  /** Whole-revision link graphs: few, as one holds every link of a space. */
  readonly graphs = new Lru<string, Promise<LinkGraph>>(6);
}
