import type { TreeNode } from "./btree.js";
import { Lru } from "../../../lru.js";
import type { BodyRecord, FileRecord, PageRecord, ReusableRecord } from "./model.js";
import type { PageIndex } from "./model.js";

/**
 * In-process caches of immutable data, shared by every request of one service instance. Keys are
 * `<storeId>:<id>` (a cached row is known to exist in that store). Sizes are bounded by weight.
 */
export class RevisionCaches {
  /** ~80 bytes per entry of a node. */
  readonly nodes = new Lru<string, TreeNode>(24 * 1024 * 1024, (node) => 64 + 80 * (node.kind === "leaf" ? node.entries.length : node.children.length));
  readonly pages = new Lru<string, PageRecord>(40_000);
  readonly files = new Lru<string, FileRecord>(20_000);
  readonly reusables = new Lru<string, ReusableRecord>(5_000);
  /** Bodies weigh their text (UTF-16, roughly two bytes per character). */
  readonly bodies = new Lru<string, BodyRecord>(32 * 1024 * 1024, (body) => 2 * (body.markdown.length + body.document.length) + 64);
  /** Whole-tree page indexes, keyed by `<storeId>:<root>`: few, as one holds every page of a space. */
  readonly pageIndexes = new Lru<string, Promise<PageIndex>>(6);
  /** Committed revision rows (immutable), by id. */
  readonly revisions = new Lru<string, RevisionHeader>(10_000);
}

/** The fields of a revision row every read needs. */
export interface RevisionHeader {
  id: string;
  spaceId: string;
  storeId: string;
  parents: string[];
  status: "draft" | "committed";
  root: string | null;
  variables: Record<string, string>;
  type: string;
  message: string;
  git: Record<string, unknown> | null;
  createdBy: string | null;
  createdAt: Date;
  committedAt: Date | null;
  /** The change request whose branch it was made on; null for the space's own history. */
  branchId: string | null;
}
