import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql, toDate } from "@imprint/runtime";
import { parseNode, serializeNode, nodeId, type NodeSink, type NodeSource, type TreeNode } from "../domain/tree/btree.js";
import type { BodyRecord, FileRecord, GitBlobValue, PageRecord, ReusableRecord } from "../domain/tree/model.js";
import type { RevisionCaches } from "../domain/tree/caches.js";

/** Rows per SELECT of versions or bodies: the rows of one result are held twice (as received, then as records) while it is read. */
const FETCH_BATCH = 2_000;

interface PageVersionRow {
  id: string;
  page_id: string;
  type: PageRecord["type"];
  parent_id: string | null;
  position: string;
  slug: string;
  title: string;
  emoji: string;
  icon: string;
  description: string;
  body_id: string | null;
  hidden: boolean;
  no_index: boolean;
  no_robots_index: boolean;
  layout: PageRecord["layout"];
  cover: PageRecord["cover"];
  variables: Record<string, string>;
  href: string | null;
  git: GitBlobValue | null;
  created_at: Date | string;
  updated_at: Date | string;
}

interface FileVersionRow {
  id: string;
  file_id: string;
  name: string;
  content_type: string;
  size: string | number;
  width: number | null;
  height: number | null;
  blob_key: string;
  git: GitBlobValue | null;
  created_at: Date | string;
}

interface ReusableVersionRow {
  id: string;
  reusable_content_id: string;
  title: string;
  body_id: string | null;
  git: GitBlobValue | null;
}

const toPage = (row: PageVersionRow): PageRecord => ({
  id: row.id,
  pageId: row.page_id,
  type: row.type,
  parentId: row.parent_id,
  position: row.position,
  slug: row.slug,
  title: row.title,
  emoji: row.emoji,
  icon: row.icon,
  description: row.description,
  bodyId: row.body_id,
  hidden: row.hidden,
  noIndex: row.no_index,
  noRobotsIndex: row.no_robots_index,
  layout: row.layout,
  cover: row.cover,
  variables: row.variables,
  href: row.href,
  git: row.git,
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
});

const fromPage = (storeId: string, page: PageRecord): PageVersionRow & { store_id: string } => ({
  store_id: storeId,
  id: page.id,
  page_id: page.pageId,
  type: page.type,
  parent_id: page.parentId,
  position: page.position,
  slug: page.slug,
  title: page.title,
  emoji: page.emoji,
  icon: page.icon,
  description: page.description,
  body_id: page.bodyId,
  hidden: page.hidden,
  no_index: page.noIndex,
  no_robots_index: page.noRobotsIndex,
  layout: page.layout,
  cover: page.cover,
  variables: page.variables,
  href: page.href,
  git: page.git,
  created_at: page.createdAt,
  updated_at: page.updatedAt,
});

const toFile = (row: FileVersionRow): FileRecord => ({
  id: row.id,
  fileId: row.file_id,
  name: row.name,
  contentType: row.content_type,
  size: Number(row.size),
  width: row.width,
  height: row.height,
  blobKey: row.blob_key,
  git: row.git,
  createdAt: toDate(row.created_at),
});

const toReusable = (row: ReusableVersionRow): ReusableRecord => ({
  id: row.id,
  reusableContentId: row.reusable_content_id,
  title: row.title,
  bodyId: row.body_id,
  git: row.git,
});

/** Rows per INSERT: large batches (a bulk import) go in several statements of bounded size. */
const INSERT_BATCH = 2000;

/**
 * The immutable rows of one store, as seen by one unit of work: reads go through the shared
 * caches, then the database; writes are staged and inserted together by `flush()` (every row is
 * content-addressed, so inserting one that exists already is a no-op).
 */
export class StoreSession implements NodeSource, NodeSink {
  private readonly pendingNodes = new Map<string, TreeNode>();
  private readonly pendingPages = new Map<string, PageRecord>();
  private readonly pendingBodies = new Map<string, BodyRecord>();
  private readonly pendingFiles = new Map<string, FileRecord>();
  private readonly pendingReusables = new Map<string, ReusableRecord>();

  constructor(
    readonly em: EntityManager,
    readonly storeId: string,
    private readonly caches: RevisionCaches,
  ) {}

  private cacheKey(id: string): string {
    return `${this.storeId}:${id}`;
  }

  // ── tree nodes ──────────────────────────────────────────────────────────────────────────────

  async load(ids: readonly string[]): Promise<Map<string, TreeNode>> {
    const found = new Map<string, TreeNode>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const node = this.pendingNodes.get(id) ?? this.caches.nodes.get(this.cacheKey(id));
      if (node) found.set(id, node);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const rows = await queryRows<{ id: string; data: unknown }>(
        this.em,
        sql`select id, data from tree_nodes where store_id = ${this.storeId} and id = any(${missing})`,
      );
      for (const row of rows) {
        const node = parseNode(row.data);
        this.caches.nodes.set(this.cacheKey(row.id), node);
        found.set(row.id, node);
      }
    }
    return found;
  }

  /**
   * Stages a node. It is inserted even when a cache holds it: the purge may have removed an
   * unreachable node that an edit now recreates, so only the database can say it exists (an
   * insert of an existing node does nothing).
   */
  put(node: TreeNode): string {
    const id = nodeId(node);
    this.pendingNodes.set(id, node);
    return id;
  }

  // ── versions and bodies ───────────────────────────────────────────────────────────────────────

  async pages(ids: readonly string[]): Promise<Map<string, PageRecord>> {
    return this.loadVersions(ids, this.pendingPages, this.caches.pages, async (missing) =>
      (await queryRows<PageVersionRow>(this.em, sql`select * from page_versions where store_id = ${this.storeId} and id = any(${missing})`)).map(toPage),
    );
  }

  async files(ids: readonly string[]): Promise<Map<string, FileRecord>> {
    return this.loadVersions(ids, this.pendingFiles, this.caches.files, async (missing) =>
      (await queryRows<FileVersionRow>(this.em, sql`select * from file_versions where store_id = ${this.storeId} and id = any(${missing})`)).map(toFile),
    );
  }

  async reusables(ids: readonly string[]): Promise<Map<string, ReusableRecord>> {
    return this.loadVersions(ids, this.pendingReusables, this.caches.reusables, async (missing) =>
      (
        await queryRows<ReusableVersionRow>(this.em, sql`select * from reusable_content_versions where store_id = ${this.storeId} and id = any(${missing})`)
      ).map(toReusable),
    );
  }

  /**
   * Bodies by id. `keep: false` is for passes that read a whole revision's bodies once (a listing,
   * link extraction, an export): bodies already cached are used, the others are read but not
   * kept, so a 10,000-page pass does not push the reads' entries out of the budget.
   */
  async bodies(ids: readonly string[], { keep = true }: { keep?: boolean } = {}): Promise<Map<string, BodyRecord>> {
    return this.loadVersions(
      ids,
      this.pendingBodies,
      this.caches.bodies,
      (missing) =>
        queryRows<BodyRecord>(this.em, sql`select id, markdown, document from content_bodies where store_id = ${this.storeId} and id = any(${missing})`),
      keep,
    );
  }

  private async loadVersions<T extends { id: string }>(
    ids: readonly string[],
    pending: Map<string, T>,
    cache: { get(key: string): T | undefined; set(key: string, value: T): void },
    fetch: (missing: string[]) => Promise<T[]>,
    keep = true,
  ): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const record = pending.get(id) ?? cache.get(this.cacheKey(id));
      if (record) found.set(id, record);
      else missing.push(id);
    }
    for (let start = 0; start < missing.length; start += FETCH_BATCH) {
      for (const record of await fetch(missing.slice(start, start + FETCH_BATCH))) {
        if (keep) cache.set(this.cacheKey(record.id), record);
        found.set(record.id, record);
      }
    }
    return found;
  }

  stagePage(page: PageRecord): void {
    this.pendingPages.set(page.id, page);
  }

  stageBody(body: BodyRecord): void {
    this.pendingBodies.set(body.id, body);
  }

  stageFile(file: FileRecord): void {
    this.pendingFiles.set(file.id, file);
  }

  stageReusable(reusable: ReusableRecord): void {
    this.pendingReusables.set(reusable.id, reusable);
  }

  /**
   * Inserts the pending tree nodes and the staged rows that `keep` still references (a page
   * edited twice in one batch leaves its first version unreferenced: it is never written).
   * Answers the number of rows inserted. Call it once per unit of work, after its one tree update.
   */
  async flush(keep: { pages: Set<string>; files: Set<string>; reusables: Set<string> }): Promise<number> {
    const pages = [...this.pendingPages.values()].filter((page) => keep.pages.has(page.id));
    const reusables = [...this.pendingReusables.values()].filter((item) => keep.reusables.has(item.id));
    const files = [...this.pendingFiles.values()].filter((file) => keep.files.has(file.id));
    const bodyIds = new Set<string>([...pages, ...reusables].map((item) => item.bodyId).filter((id): id is string => id !== null));
    const bodies = [...this.pendingBodies.values()].filter((body) => bodyIds.has(body.id));
    // Every pending node is part of the one tree update this unit of work made.
    const nodes = [...this.pendingNodes];

    let written = 0;
    written += await this.insertJson(
      "tree_nodes",
      nodes.map(([id, node]) => ({ store_id: this.storeId, id, data: JSON.parse(serializeNode(node)) as unknown })),
    );
    written += await this.insertJson(
      "content_bodies",
      bodies.map((body) => ({ store_id: this.storeId, ...body })),
    );
    written += await this.insertJson(
      "page_versions",
      pages.map((page) => fromPage(this.storeId, page)),
    );
    written += await this.insertJson(
      "file_versions",
      files.map((file) => ({
        store_id: this.storeId,
        id: file.id,
        file_id: file.fileId,
        name: file.name,
        content_type: file.contentType,
        size: file.size,
        width: file.width,
        height: file.height,
        blob_key: file.blobKey,
        git: file.git,
        created_at: file.createdAt,
      })),
    );
    written += await this.insertJson(
      "reusable_content_versions",
      reusables.map((item) => ({
        store_id: this.storeId,
        id: item.id,
        reusable_content_id: item.reusableContentId,
        title: item.title,
        body_id: item.bodyId,
        git: item.git,
      })),
    );

    for (const [id, node] of nodes) this.caches.nodes.set(this.cacheKey(id), node);
    for (const page of pages) this.caches.pages.set(this.cacheKey(page.id), page);
    this.pendingNodes.clear();
    this.pendingPages.clear();
    this.pendingBodies.clear();
    this.pendingFiles.clear();
    this.pendingReusables.clear();
    return written;
  }

  /** Inserts rows given as JSON objects keyed by column name (one parameter per batch). */
  private async insertJson(
    table: "tree_nodes" | "content_bodies" | "page_versions" | "file_versions" | "reusable_content_versions",
    rows: object[],
  ): Promise<number> {
    let written = 0;
    for (let start = 0; start < rows.length; start += INSERT_BATCH) {
      const batch = JSON.stringify(rows.slice(start, start + INSERT_BATCH));
      written += await executeStatement(
        this.em,
        sql`insert into ${sql.table(table)} select * from jsonb_populate_recordset(null::${sql.table(table)}, ${batch}::jsonb) on conflict do nothing`,
      );
    }
    return written;
  }
}
