import { CachedLoader } from "@imprint/runtime";
import type { ExtractedLink } from "./extract.js";
import type { LinkGraph } from "./model.js";

/** About what one extracted link takes in memory. */
const LINK_BYTES = 100;

/**
 * In-process caches of the links module. Extractions are keyed `<storeId>:<pageVersionId>` and
 * never go stale (versions are immutable); graphs are keyed `<storeId>:<root>` (a committed
 * revision's tree never changes, so neither does its graph).
 */
export class LinkCaches {
  /** Charged per link, at about what one takes (at least one: "no links" is worth remembering too). */
  readonly extractions = new CachedLoader<ExtractedLink[]>({
    name: "link extractions",
    maxBytes: 400_000 * LINK_BYTES,
    bytes: (links) => LINK_BYTES * (1 + links.length),
  });
  /** Whole-revision link graphs: few, as one holds every link of a space. */
  readonly graphs = new CachedLoader<LinkGraph>({ name: "link graphs", maxEntries: 6 });
}
