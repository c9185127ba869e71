import { CacheBudget, CachedLoader } from "@imprint/runtime";
import type { TreeNode } from "./btree.js";
import type { BodyRecord, FileRecord, PageRecord, ReusableRecord } from "./model.js";
import type { PageIndex } from "./model.js";

/**
 * What each kind of entry is charged against the budget: about what it takes in V8's heap, as heap
 * snapshots of content under the bench measured it (text at two bytes a character, which covers
 * any text; fixed fields at their measured cost).
 */
const text = (value: string | null | undefined): number => 2 * (value?.length ?? 0);
const json = (value: unknown): number => (value === null || value === undefined ? 0 : 2 * (JSON.stringify(value)?.length ?? 0));
/**
 * A node's pairs of keys and ids (ASCII, one byte a character): each pair is an array of two and
 * two strings, 96 bytes with their headers. A full leaf of a 10,000-page space takes ~25 KB.
 */
const nodeBytes = (node: TreeNode): number => {
  let bytes = 64;
  for (const [key, value] of node.kind === "leaf" ? node.entries : node.children) bytes += 96 + key.length + value.length;
  return bytes;
};
const pageText = (page: PageRecord): number =>
  text(page.title) + text(page.slug) + text(page.description) + text(page.emoji) + text(page.icon) + text(page.href);
/** A version's ids, dates and fixed fields took ~600 bytes in snapshots. */
const pageBytes = (page: PageRecord): number => 600 + pageText(page) + json(page.variables) + json(page.cover);
const fileBytes = (file: FileRecord): number => 300 + text(file.name) + text(file.contentType);
const reusableBytes = (reusable: ReusableRecord): number => 200 + text(reusable.title);
const bodyBytes = (body: BodyRecord): number => 64 + text(body.markdown) + text(body.document);
/** An index holds every page of a tree: its record (shared with `pages` or not), its path and its place among its siblings. */
const pageIndexBytes = (index: PageIndex): number => {
  let bytes = 256;
  for (const page of index.byId.values()) bytes += pageBytes(page) + 120;
  for (const path of index.paths.values()) bytes += 64 + text(path);
  return bytes;
};
const revisionBytes = (revision: RevisionHeader): number =>
  400 + 80 * revision.parents.length + text(revision.message) + json(revision.variables) + json(revision.git);

/** What a content process keeps of its trees by default: every cache of the process together (CONTENT_CACHE_BYTES). */
export const DEFAULT_CONTENT_CACHE_BYTES = 96 * 1024 * 1024;

/**
 * In-process caches of immutable data, shared by every request of one service instance. Keys are
 * `<storeId>:<id>` (a cached row is known to exist in that store). Every cache of the process
 * (this set and indexing's, see `indexingCaches`) draws on one budget in bytes, least recently
 * used dropped first, so the process's memory holds whatever the mix of reads: a 10,000-page
 * space's page index, the bodies of long pages, or many small spaces' nodes.
 */
export class RevisionCaches {
  readonly nodes: CachedLoader<TreeNode>;
  readonly pages: CachedLoader<PageRecord>;
  readonly files: CachedLoader<FileRecord>;
  readonly reusables: CachedLoader<ReusableRecord>;
  readonly bodies: CachedLoader<BodyRecord>;
  /** Whole-tree page indexes, keyed by `<storeId>:<root>`: one holds every page of a space. */
  readonly pageIndexes: CachedLoader<PageIndex>;
  /** Committed revision rows (immutable), by id. */
  readonly revisions: CachedLoader<RevisionHeader>;

  /**
   * `budget`: the process's one budget (each set of caches names its loaders apart with `prefix`);
   * `own`: loaders bounded on their own instead, for reads that pass through once (indexing).
   */
  constructor(
    budget: CacheBudget = new CacheBudget(DEFAULT_CONTENT_CACHE_BYTES),
    prefix = "",
    own: { pages?: CachedLoader<PageRecord>; bodies?: CachedLoader<BodyRecord> } = {},
  ) {
    const budgeted = <V>(name: string, bytes: (value: V) => number) => new CachedLoader<V>({ name: `${prefix}${name}`, budget, bytes });
    this.nodes = budgeted("tree nodes", nodeBytes);
    this.pages = own.pages ?? budgeted("page versions", pageBytes);
    this.files = budgeted("file versions", fileBytes);
    this.reusables = budgeted("reusable versions", reusableBytes);
    this.bodies = own.bodies ?? budgeted("bodies", bodyBytes);
    this.pageIndexes = budgeted("page indexes", pageIndexBytes);
    this.revisions = budgeted("revisions", revisionBytes);
  }
}

/** Size of an entry of `bodies`, for loaders bounded on their own. */
export { bodyBytes };

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
