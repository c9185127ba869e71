import { treeGet, treeScan } from "./btree.js";
import type { RevisionCaches } from "./caches.js";
import { childPrefix, FILE_PREFIX, fileKey, pageKey, REUSABLE_PREFIX, reusableKey, slugKey } from "./keys.js";
import type { BodyRecord, FileRecord, PageRecord, ReusableRecord } from "./model.js";
import { buildPageIndex, type PageIndex } from "./page-index.js";
import type { StoreSession } from "../../store/session.js";

/** A page with its descendants, in order. */
export interface PageTree {
  page: PageRecord;
  path: string;
  children: PageTree[];
}

/** Pages deeper than this are refused on write; reads stop walking there too. */
export const MAX_PAGE_DEPTH = 32;

/**
 * Read access to one content tree (a revision's root): bounded lookups through the tree's
 * indexes for single pages and paths, a cached whole-tree index for full listings.
 */
export class ContentView {
  constructor(
    readonly session: StoreSession,
    readonly root: string | null,
    private readonly caches: RevisionCaches,
  ) {}

  async page(pageId: string): Promise<PageRecord | undefined> {
    const versionId = await treeGet(this.session, this.root, pageKey(pageId));
    if (!versionId) return undefined;
    const page = (await this.session.pages([versionId])).get(versionId);
    if (!page) throw new Error(`page version ${versionId} is missing`);
    return page;
  }

  /** The page at `path` (slugs joined with "/"): one slug lookup per segment. */
  async pageByPath(path: string): Promise<PageRecord | undefined> {
    const segments = path.split("/").filter((segment) => segment !== "");
    if (segments.length === 0 || segments.length > MAX_PAGE_DEPTH) return undefined;
    let parent: string | null = null;
    for (const segment of segments) {
      const pageId = await treeGet(this.session, this.root, slugKey(parent, segment));
      if (!pageId) return undefined;
      parent = pageId;
    }
    return this.page(parent!);
  }

  async pathOf(page: PageRecord): Promise<string> {
    const slugs = [page.slug];
    let parentId = page.parentId;
    for (let depth = 0; parentId && depth < MAX_PAGE_DEPTH; depth++) {
      const parent = await this.page(parentId);
      if (!parent) break;
      slugs.unshift(parent.slug);
      parentId = parent.parentId;
    }
    return slugs.join("/");
  }

  /** Ids of the children of `parentId` (null: the top level), in order. */
  async childIds(parentId: string | null): Promise<string[]> {
    const entries = await treeScan(this.session, this.root, { prefix: childPrefix(parentId) });
    return entries.map(([, pageId]) => pageId);
  }

  /** A page and all its descendants, one level at a time. */
  async subtree(page: PageRecord, path: string): Promise<PageTree> {
    const top: PageTree = { page, path, children: [] };
    let level: PageTree[] = [top];
    for (let depth = 0; level.length > 0 && depth < MAX_PAGE_DEPTH; depth++) {
      const childIds = await Promise.all(level.map((node) => this.childIds(node.page.pageId)));
      const versionIds = await Promise.all(childIds.flat().map((id) => treeGet(this.session, this.root, pageKey(id))));
      const versions = await this.session.pages(versionIds.filter((id): id is string => id !== undefined));
      const next: PageTree[] = [];
      let offset = 0;
      level.forEach((node, index) => {
        for (const _ of childIds[index]!) {
          const child = versions.get(versionIds[offset++] ?? "");
          if (!child) continue;
          const tree: PageTree = { page: child, path: `${node.path}/${child.slug}`, children: [] };
          node.children.push(tree);
          next.push(tree);
        }
      });
      level = next;
    }
    return top;
  }

  /** Every page (cached per tree root: a committed revision never changes). */
  index(): Promise<PageIndex> {
    return this.caches.pageIndexes.load(`${this.session.storeId}:${this.root ?? ""}`, () => buildPageIndex(this.session, this.root));
  }

  /** Bodies by id; `keep: false` for passes over a whole revision (see StoreSession.bodies). */
  async bodies(ids: readonly string[], options?: { keep?: boolean }): Promise<Map<string, BodyRecord>> {
    return this.session.bodies(ids, options);
  }

  async file(fileId: string): Promise<FileRecord | undefined> {
    const versionId = await treeGet(this.session, this.root, fileKey(fileId));
    return versionId ? (await this.session.files([versionId])).get(versionId) : undefined;
  }

  /** Files in id order after `afterFileId`, at most `limit`; and how many files there are. */
  async filePage(afterFileId: string | undefined, limit: number): Promise<{ files: FileRecord[]; total: number; hasMore: boolean }> {
    const all = await treeScan(this.session, this.root, { prefix: FILE_PREFIX });
    const start = afterFileId === undefined ? 0 : all.findIndex(([key]) => key > fileKey(afterFileId));
    const slice = start < 0 ? [] : all.slice(start, start + limit);
    const versions = await this.session.files(slice.map(([, versionId]) => versionId));
    return {
      files: slice.map(([, versionId]) => versions.get(versionId)).filter((file): file is FileRecord => file !== undefined),
      total: all.length,
      hasMore: start >= 0 && start + limit < all.length,
    };
  }

  async allFiles(): Promise<FileRecord[]> {
    const entries = await treeScan(this.session, this.root, { prefix: FILE_PREFIX });
    const versions = await this.session.files(entries.map(([, versionId]) => versionId));
    return entries.map(([, versionId]) => versions.get(versionId)).filter((file): file is FileRecord => file !== undefined);
  }

  async reusable(reusableContentId: string): Promise<ReusableRecord | undefined> {
    const versionId = await treeGet(this.session, this.root, reusableKey(reusableContentId));
    return versionId ? (await this.session.reusables([versionId])).get(versionId) : undefined;
  }

  async allReusables(): Promise<ReusableRecord[]> {
    const entries = await treeScan(this.session, this.root, { prefix: REUSABLE_PREFIX });
    const versions = await this.session.reusables(entries.map(([, versionId]) => versionId));
    return entries.map(([, versionId]) => versions.get(versionId)).filter((item): item is ReusableRecord => item !== undefined);
  }
}
