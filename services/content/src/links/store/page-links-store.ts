import type { EntityManager } from "@mikro-orm/postgresql";
import { type PageRecord, type StoreSession } from "../../revisions/index.js";
import type { JsonDocument } from "@imprint/document";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import type { LinkCaches } from "../domain/caches.js";
import type { ExtractionCounts } from "../domain/model.js";
import { extractPageLinks, type ExtractedLink } from "../domain/extract.js";

/** Rows per INSERT statement (one JSON parameter each). */
const INSERT_BATCH = 2000;
/** Ids per SELECT (one array parameter each). */
const SELECT_BATCH = 10_000;
/** Page versions whose bodies are read and parsed together. */
const EXTRACT_BATCH = 500;

/**
 * The links of each page version, by version id. Each version is extracted once: what the cache
 * or the table holds is reused, and only versions never seen before have their body read and
 * parsed, so after a commit the work follows the pages that changed, not the size of the space.
 * Concurrent extractions of the same version write the same row; the second insert does nothing.
 */
export async function loadPageLinks(
  session: StoreSession,
  caches: LinkCaches,
  pages: readonly PageRecord[],
): Promise<{ links: Map<string, ExtractedLink[]>; counts: ExtractionCounts }> {
  const { em, storeId } = session;
  const key = (versionId: string) => `${storeId}:${versionId}`;
  const links = new Map<string, ExtractedLink[]>();
  const missing: PageRecord[] = [];
  for (const page of pages) {
    const cached = caches.extractions.get(key(page.id));
    if (cached) links.set(page.id, cached);
    else missing.push(page);
  }
  const reusedFromMemory = links.size;

  const stored = await readStoredLinks(
    em,
    storeId,
    missing.map((page) => page.id),
  );
  for (const [versionId, pageLinks] of stored) {
    caches.extractions.set(key(versionId), pageLinks);
    links.set(versionId, pageLinks);
  }

  const toExtract = missing.filter((page) => !stored.has(page.id));
  // A batch of bodies at a time: a 10,000-page import never holds every body and its parsed document at once.
  for (let start = 0; start < toExtract.length; start += EXTRACT_BATCH) {
    const batch = toExtract.slice(start, start + EXTRACT_BATCH);
    const bodies = await session.bodies(
      batch.map((page) => page.bodyId).filter((id): id is string => id !== null),
      { keep: false },
    );
    const rows: { store_id: string; page_version_id: string; links: ExtractedLink[] }[] = [];
    for (const page of batch) {
      const body = page.bodyId ? bodies.get(page.bodyId) : undefined;
      if (page.bodyId && !body) throw new Error(`body ${page.bodyId} is missing`);
      const pageLinks = extractPageLinks(page, body ? (JSON.parse(body.document) as JsonDocument) : undefined);
      rows.push({ store_id: storeId, page_version_id: page.id, links: pageLinks });
      links.set(page.id, pageLinks);
    }
    await insertLinks(em, rows);
    for (const row of rows) caches.extractions.set(key(row.page_version_id), row.links);
  }
  return { links, counts: { reused: reusedFromMemory + stored.size, extracted: toExtract.length } };
}

async function readStoredLinks(em: EntityManager, storeId: string, versionIds: readonly string[]): Promise<Map<string, ExtractedLink[]>> {
  const found = new Map<string, ExtractedLink[]>();
  for (let start = 0; start < versionIds.length; start += SELECT_BATCH) {
    const batch = versionIds.slice(start, start + SELECT_BATCH);
    const rows = await queryRows<{ page_version_id: string; links: ExtractedLink[] }>(
      em,
      sql`select page_version_id, links from page_version_links where store_id = ${storeId} and page_version_id = any(${batch})`,
    );
    for (const row of rows) found.set(row.page_version_id, row.links);
  }
  return found;
}

async function insertLinks(em: EntityManager, rows: readonly object[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = JSON.stringify(rows.slice(start, start + INSERT_BATCH));
    await executeStatement(
      em,
      sql`insert into page_version_links select * from jsonb_populate_recordset(null::page_version_links, ${batch}::jsonb) on conflict do nothing`,
    );
  }
}
