import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import type { BlobStore } from "../../../blob-store.js";
import { parseNode } from "../../domain/tree/btree.js";
import { FILE_PREFIX, PAGE_PREFIX, REUSABLE_PREFIX } from "../../domain/tree/keys.js";

const STORE_TABLES = ["tree_nodes", "page_versions", "content_bodies", "file_versions", "reusable_content_versions"] as const;

/**
 * Deletes every branch, revision and draft of a space, then the content rows nothing references any more.
 * A store used by this space alone is dropped whole. A store shared with duplicates is swept:
 * everything reachable from the remaining revisions' trees is kept, the rest deleted (under an
 * exclusive lock on the store, so no edit is building on a node being removed). Answers the blob
 * keys no file row references any more: delete them with {@link deleteOrphanedBlobs} once the
 * transaction has committed.
 */
export async function purgeSpaceContent(em: EntityManager, spaceId: string): Promise<{ orphanedBlobs: string[] }> {
  await executeStatement(em, sql`delete from branches where space_id = ${spaceId}`);
  const stores = await queryRows(em, sql<{ store_id: string }>`delete from revisions where space_id = ${spaceId} returning store_id`);
  const removedBlobs = new Set<string>();
  for (const storeId of new Set(stores.map((row) => row.store_id))) {
    await executeStatement(em, sql`select pg_advisory_xact_lock(hashtextextended(${`store:${storeId}`}, 0))`);
    const roots = await queryRows<{ root: string | null }>(em, sql`select distinct root from revisions where store_id = ${storeId}`);
    const stillUsed = roots.length > 0;
    const reachable = stillUsed
      ? await markReachable(
          em,
          storeId,
          roots.map((row) => row.root).filter((root): root is string => root !== null),
        )
      : undefined;
    for (const table of STORE_TABLES) {
      const keep = reachable?.[table] ?? [];
      const deleted =
        table === "file_versions"
          ? await queryRows(em, sql<{ blob_key: string }>`delete from file_versions where store_id = ${storeId} and not (id = any(${keep})) returning blob_key`)
          : (await executeStatement(em, sql`delete from ${sql.table(table)} where store_id = ${storeId} and not (id = any(${keep}))`), []);
      for (const row of deleted) removedBlobs.add(row.blob_key);
    }
  }
  if (removedBlobs.size === 0) return { orphanedBlobs: [] };
  const stillReferenced = await queryRows<{ blob_key: string }>(
    em,
    sql`select distinct blob_key from file_versions where blob_key = any(${[...removedBlobs]})`,
  );
  const referenced = new Set(stillReferenced.map((row) => row.blob_key));
  return { orphanedBlobs: [...removedBlobs].filter((key) => !referenced.has(key)) };
}

/** Ids of every row reachable from `roots`: tree nodes, then the versions and bodies they name. */
async function markReachable(em: EntityManager, storeId: string, roots: string[]): Promise<Record<(typeof STORE_TABLES)[number], string[]>> {
  const nodes = new Set<string>();
  const pages = new Set<string>();
  const files = new Set<string>();
  const reusables = new Set<string>();
  let frontier = [...new Set(roots)];
  while (frontier.length > 0) {
    for (const id of frontier) nodes.add(id);
    const rows = await queryRows<{ id: string; data: unknown }>(em, sql`select id, data from tree_nodes where store_id = ${storeId} and id = any(${frontier})`);
    const next = new Set<string>();
    for (const row of rows) {
      const node = parseNode(row.data);
      if (node.kind === "branch") {
        for (const [, child] of node.children) if (!nodes.has(child)) next.add(child);
        continue;
      }
      for (const [key, value] of node.entries) {
        if (key.startsWith(PAGE_PREFIX)) pages.add(value);
        else if (key.startsWith(FILE_PREFIX)) files.add(value);
        else if (key.startsWith(REUSABLE_PREFIX)) reusables.add(value);
      }
    }
    frontier = [...next];
  }
  const bodies = await queryRows<{ body_id: string }>(
    em,
    sql`select body_id from page_versions where store_id = ${storeId} and id = any(${[...pages]}) and body_id is not null
        union select body_id from reusable_content_versions where store_id = ${storeId} and id = any(${[...reusables]}) and body_id is not null`,
  );
  return {
    tree_nodes: [...nodes],
    page_versions: [...pages],
    content_bodies: bodies.map((row) => row.body_id),
    file_versions: [...files],
    reusable_content_versions: [...reusables],
  };
}

/**
 * Deletes blobs that no file row and no export references, each under the advisory lock uploads
 * and exports take for that key (storeBlob in upload-file.ts), re-checking the references inside
 * it: an upload or export of the same bytes that committed meanwhile keeps its blob.
 */
export async function deleteOrphanedBlobs(em: EntityManager, blobStore: BlobStore, keys: readonly string[]): Promise<number> {
  let deleted = 0;
  for (const key of keys) {
    await em.fork().transactional(async (tx) => {
      await executeStatement(tx, sql`select pg_advisory_xact_lock(hashtextextended(${`blob:${key}`}, 0))`);
      const [row] = await queryRows<{ found: number }>(
        tx,
        sql`select 1 as found from file_versions where blob_key = ${key} union all select 1 from exports where blob_key = ${key} limit 1`,
      );
      if (row) return;
      await blobStore.delete(key);
      deleted++;
    });
  }
  return deleted;
}
