import { CachedLoader } from "@imprint/runtime";
import type { TreeNode } from "./btree.js";
import type { BodyRecord, FileRecord, PageRecord, ReusableRecord } from "./model.js";
import type { PageIndex } from "./model.js";

/**
 * In-process caches of immutable data, shared by every request of one service instance. Keys are
 * `<storeId>:<id>` (a cached row is known to exist in that store). Each is bounded on its own, in
 * bytes where entries vary in size and in entries where they are alike.
 */
export class RevisionCaches {
  /** ~80 bytes per entry of a node. */
  readonly nodes = new CachedLoader<TreeNode>({
    name: "tree nodes",
    maxBytes: 24 * 1024 * 1024,
    bytes: (node) => 64 + 80 * (node.kind === "leaf" ? node.entries.length : node.children.length),
  });
  readonly pages = new CachedLoader<PageRecord>({ name: "page versions", maxEntries: 40_000 });
  readonly files = new CachedLoader<FileRecord>({ name: "file versions", maxEntries: 20_000 });
  readonly reusables = new CachedLoader<ReusableRecord>({ name: "reusable versions", maxEntries: 5_000 });
  /** Bodies weigh their text (UTF-16, roughly two bytes per character). */
  readonly bodies = new CachedLoader<BodyRecord>({
    name: "bodies",
    maxBytes: 32 * 1024 * 1024,
    bytes: (body) => 2 * (body.markdown.length + body.document.length) + 64,
  });
  /** Whole-tree page indexes, keyed by `<storeId>:<root>`: few, as one holds every page of a space. */
  readonly pageIndexes = new CachedLoader<PageIndex>({ name: "page indexes", maxEntries: 6 });
  /** Committed revision rows (immutable), by id. */
  readonly revisions = new CachedLoader<RevisionHeader>({ name: "revisions", maxEntries: 10_000 });
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
