import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import { ContentView, diffPageVersions, MAX_PAGE_DEPTH, type PageTree, type PageRecord, findRevision, StoreSession } from "../../revisions/index.js";
import { pageSections } from "../domain/sections.js";
import { SEARCH_CONFIG } from "../store/text-search.js";
import type { SearchIndexDeps } from "../../deps.js";

export interface IndexSpaceResult {
  /** The revision the index now holds for the space (null: the space is gone or deleted, its rows dropped). */
  revisionId: string | null;
  /** Whether the index changed: it did not hold the space as it is now. */
  updated: boolean;
  /** Pages (re)written: added or changed since the previously indexed revision. */
  indexedPages: number;
  /** Pages dropped from the index. */
  removedPages: number;
  /** Unchanged pages whose path or ancestors changed (a parent renamed or moved). */
  relocatedPages: number;
}

interface Location {
  path: string;
  ancestors: string[];
}

/** Rows (pages, sections) per statement: each batch travels as one JSON parameter. */
const WRITE_BATCH = 1_000;
/** Changed pages read, cut into sections and written together: their bodies, documents and sections are held at once. */
const PAGE_BATCH = 250;

function batches<T>(items: T[], size = WRITE_BATCH): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Paths and ancestor titles of pages in one content tree, each ancestor resolved once. */
class PageLocator {
  private readonly located = new Map<string, Promise<Location>>();

  constructor(private readonly view: ContentView) {}

  locate(page: PageRecord, depth = 0): Promise<Location> {
    let location = this.located.get(page.pageId);
    if (!location) {
      location = (async () => {
        if (!page.parentId || depth >= MAX_PAGE_DEPTH) return { path: page.slug, ancestors: [] };
        const parent = await this.view.page(page.parentId);
        if (!parent) return { path: page.slug, ancestors: [] };
        const above = await this.locate(parent, depth + 1);
        return { path: `${above.path}/${page.slug}`, ancestors: [...above.ancestors, parent.title] };
      })();
      this.located.set(page.pageId, location);
    }
    return location;
  }
}

/** Drops everything the index holds about a space; answers whether it held the space. */
export async function dropSpaceFromIndex(em: EntityManager, spaceId: string): Promise<boolean> {
  await executeStatement(em, sql`delete from search_sections where space_id = ${spaceId}`);
  await executeStatement(em, sql`delete from search_pages where space_id = ${spaceId}`);
  return (await executeStatement(em, sql`delete from search_spaces where space_id = ${spaceId}`)) > 0;
}

/**
 * Brings the index of one space to the space's current revision. Only the pages whose version
 * differs from the indexed revision's are re-read and re-indexed (the two trees are diffed
 * through the store, which skips every subtree they share); pages below a renamed or moved page
 * get their path and ancestors rewritten, not re-indexed. A space that is gone or deleted is
 * dropped from the index. A space indexed for the first time that shares its store with an
 * indexed space (a duplicate) starts from that space's rows. Always indexes the current head, whatever revision triggered it, so
 * events handled late or twice converge on the same state.
 *
 * Runs inside the caller's transaction, under a per-space advisory lock (replicas handling two
 * events of one space take turns) and a shared lock on the store (the purge of a duplicate
 * cannot sweep nodes while they are read).
 */
export async function indexSpace(em: EntityManager, spaceId: string, deps: SearchIndexDeps): Promise<IndexSpaceResult> {
  await executeStatement(em, sql`select pg_advisory_xact_lock(hashtextextended(${`search:${spaceId}`}, 0))`);
  const [space] = await queryRows<{ revision_id: string | null; deleted_at: Date | null }>(
    em,
    sql`select revision_id, deleted_at from spaces where id = ${spaceId}`,
  );
  const nothing = { indexedPages: 0, removedPages: 0, relocatedPages: 0 };
  if (!space || space.deleted_at !== null || !space.revision_id) {
    const updated = await dropSpaceFromIndex(em, spaceId);
    return { revisionId: null, updated, ...nothing };
  }
  const head = await findRevision(em, deps.caches, space.revision_id);
  if (!head || head.status !== "committed") throw new Error(`space ${spaceId} points at revision ${space.revision_id}, which is not a committed revision`);

  const [indexed] = await queryRows<{ revision_id: string; store_id: string; root: string | null }>(
    em,
    sql`select revision_id, store_id, root from search_spaces where space_id = ${spaceId}`,
  );
  if (indexed?.revision_id === head.id) return { revisionId: head.id, updated: false, ...nothing };
  await executeStatement(em, sql`select pg_advisory_xact_lock_shared(hashtextextended(${`store:${head.storeId}`}, 0))`);

  // A space's revisions share one store; anything else means start over, from a sibling when it can.
  let base = indexed !== undefined && indexed.store_id === head.storeId ? { root: indexed.root } : undefined;
  if (!base) {
    await dropSpaceFromIndex(em, spaceId);
    base = await copyFromSibling(em, spaceId, head.storeId);
  }
  const session = new StoreSession(em, head.storeId, deps.caches);
  const changes = await diffPageVersions(session, base ? base.root : null, head.root);

  const view = new ContentView(session, head.root, deps.caches);
  const locator = new PageLocator(view);
  // A batch of pages at a time: a 10,000-page import never holds every version, body and section in memory.
  let indexedPages = 0;
  const relocatedRoots: PageRecord[] = [];
  for (const batch of batches(changes, PAGE_BATCH)) {
    const versions = await session.pages(batch.flatMap((change) => [change.before, change.after]).filter((id): id is string => id !== undefined));
    const version = (id: string | undefined) => (id === undefined ? undefined : versions.get(id));
    const documents = batch.map((change) => version(change.after)).filter((page): page is PageRecord => page?.type === "document");
    const documentIds = new Set(documents.map((page) => page.pageId));
    const stale = batch.map((change) => change.pageId).filter((pageId) => !documentIds.has(pageId));
    await executeStatement(em, sql`delete from search_sections where space_id = ${spaceId} and page_id = any(${batch.map((change) => change.pageId)})`);
    await executeStatement(em, sql`delete from search_pages where space_id = ${spaceId} and page_id = any(${stale})`);
    await writePages(em, spaceId, documents, session, locator);
    indexedPages += documents.length;
    for (const change of batch) {
      const [before, after] = [version(change.before), version(change.after)];
      if (before && after && (before.slug !== after.slug || before.title !== after.title || before.parentId !== after.parentId)) relocatedRoots.push(after);
    }
  }
  const relocated = await relocateDescendants(em, spaceId, view, locator, relocatedRoots, new Set(changes.map((change) => change.pageId)));

  await executeStatement(
    em,
    sql`insert into search_spaces (space_id, revision_id, store_id, root, indexed_at)
        values (${spaceId}, ${head.id}, ${head.storeId}, ${head.root}, ${deps.clock()})
        on conflict (space_id) do update
          set revision_id = excluded.revision_id, store_id = excluded.store_id, root = excluded.root, indexed_at = excluded.indexed_at`,
  );
  const removed = changes.filter((change) => change.after === undefined).length;
  return { revisionId: head.id, updated: true, indexedPages, removedPages: removed, relocatedPages: relocated };
}

/** Writes the sections, then the page rows (whose vector concatenates them), of some pages. */
async function writePages(em: EntityManager, spaceId: string, pages: PageRecord[], session: StoreSession, locator: PageLocator): Promise<void> {
  const locations = await Promise.all(pages.map((page) => locator.locate(page)));
  const bodies = await session.bodies(pages.map((page) => page.bodyId).filter((id): id is string => id !== null));
  const sectionRows = pages.flatMap((page) => {
    const body = page.bodyId ? bodies.get(page.bodyId) : undefined;
    if (page.bodyId && !body) throw new Error(`body ${page.bodyId} of page ${page.pageId} is missing`);
    return pageSections(body?.document ?? null).map((section) => ({
      page_id: page.pageId,
      position: section.position,
      anchor: section.anchor,
      title: section.position === 0 ? page.title : section.heading,
      body: section.text,
      page_title: section.position === 0 ? page.title : "",
      page_description: section.position === 0 ? page.description : "",
      heading: section.heading,
    }));
  });
  for (const batch of batches(sectionRows)) {
    // Weights: the page title A, its description and the section heading B, the text C.
    await executeStatement(
      em,
      sql`insert into search_sections (space_id, page_id, position, anchor, title, body, tsv)
          select ${spaceId}, x.page_id, x.position, x.anchor, x.title, x.body,
                 setweight(to_tsvector(${SEARCH_CONFIG}::regconfig, x.page_title), 'A')
                 || setweight(to_tsvector(${SEARCH_CONFIG}::regconfig, x.page_description || ' ' || x.heading), 'B')
                 || setweight(to_tsvector(${SEARCH_CONFIG}::regconfig, x.body), 'C')
          from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb)
               as x(page_id text, position int, anchor text, title text, body text, page_title text, page_description text, heading text)`,
    );
  }
  const pageRows = pages.map((page, index) => ({
    page_id: page.pageId,
    version_id: page.id,
    title: page.title,
    description: page.description,
    path: locations[index]!.path,
    ancestors: locations[index]!.ancestors,
  }));
  await executeStatement(
    em,
    sql`insert into search_pages (space_id, page_id, version_id, title, description, path, ancestor_titles, tsv)
        select ${spaceId}, x.page_id, x.version_id, x.title, x.description, x.path,
               array(select jsonb_array_elements_text(x.ancestors)),
               coalesce((select search_tsvector_agg(s.tsv order by s.position) from search_sections s
                         where s.space_id = ${spaceId} and s.page_id = x.page_id), ''::tsvector)
        from jsonb_to_recordset(${JSON.stringify(pageRows)}::jsonb)
             as x(page_id text, version_id text, title text, description text, path text, ancestors jsonb)
        on conflict (space_id, page_id) do update
          set version_id = excluded.version_id, title = excluded.title, description = excluded.description,
              path = excluded.path, ancestor_titles = excluded.ancestor_titles, tsv = excluded.tsv`,
  );
}

/**
 * A duplicated space shares its store (and usually its tree) with the space it was copied from:
 * rather than parsing every page again, start from that space's rows and let the diff do the
 * rest. Only a sibling whose index is not being rewritten right now is used (its lock is tried,
 * never waited for, so two spaces copying each other cannot deadlock). Answers the root the
 * copied rows stand for, or undefined when there is no usable sibling.
 */
async function copyFromSibling(em: EntityManager, spaceId: string, storeId: string): Promise<{ root: string | null } | undefined> {
  const siblings = await queryRows<{ space_id: string }>(
    em,
    sql`select space_id from search_spaces where store_id = ${storeId} and space_id <> ${spaceId} order by indexed_at desc limit 3`,
  );
  for (const { space_id: siblingId } of siblings) {
    const [locked] = await queryRows<{ locked: boolean }>(em, sql`select pg_try_advisory_xact_lock(hashtextextended(${`search:${siblingId}`}, 0)) as locked`);
    if (!locked?.locked) continue;
    const [sibling] = await queryRows<{ root: string | null }>(em, sql`select root from search_spaces where space_id = ${siblingId} and store_id = ${storeId}`);
    if (!sibling) continue;
    await executeStatement(
      em,
      sql`insert into search_pages (space_id, page_id, version_id, title, description, path, ancestor_titles, tsv)
          select ${spaceId}, page_id, version_id, title, description, path, ancestor_titles, tsv from search_pages where space_id = ${siblingId}`,
    );
    await executeStatement(
      em,
      sql`insert into search_sections (space_id, page_id, position, anchor, title, body, tsv)
          select ${spaceId}, page_id, position, anchor, title, body, tsv from search_sections where space_id = ${siblingId}`,
    );
    return { root: sibling.root };
  }
  return undefined;
}

/**
 * Paths and ancestor titles are stored per page. A page renamed (title or slug) or moved changes
 * them for its whole subtree without changing those pages' versions: rewrite just these fields
 * of the descendants that were not re-indexed anyway.
 */
async function relocateDescendants(
  em: EntityManager,
  spaceId: string,
  view: ContentView,
  locator: PageLocator,
  relocatedRoots: readonly PageRecord[],
  changedIds: ReadonlySet<string>,
): Promise<number> {
  const rows = new Map<string, Location>();
  for (const page of relocatedRoots) {
    const location = await locator.locate(page);
    const walk = (node: PageTree, ancestors: string[]) => {
      for (const child of node.children) {
        const childAncestors = [...ancestors, node.page.title];
        if (!changedIds.has(child.page.pageId)) rows.set(child.page.pageId, { path: child.path, ancestors: childAncestors });
        walk(child, childAncestors);
      }
    };
    walk(await view.subtree(page, location.path), location.ancestors);
  }
  const updates = [...rows].map(([pageId, location]) => ({ page_id: pageId, path: location.path, ancestors: location.ancestors }));
  let updated = 0;
  for (const batch of batches(updates)) {
    updated += await executeStatement(
      em,
      sql`update search_pages p set path = x.path, ancestor_titles = array(select jsonb_array_elements_text(x.ancestors))
          from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(page_id text, path text, ancestors jsonb)
          where p.space_id = ${spaceId} and p.page_id = x.page_id`,
    );
  }
  return updated;
}
