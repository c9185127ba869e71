import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import type { BlobStore } from "../../blob-store.js";
import { deleteOrphanedBlobs } from "../../revisions/index.js";

const BATCH = 500;

/**
 * Deletes the exports whose download URL expired, then their bytes unless a file version or
 * another export holds the same blob. Rows go in batches, each committed on its own; the blobs of
 * a batch follow it, each under the blob's lock (see deleteOrphanedBlobs).
 */
export async function deleteExpiredExports(
  em: EntityManager,
  deps: { clock: () => Date; blobStore: BlobStore },
): Promise<{ deleted: number; blobsDeleted: number }> {
  const now = deps.clock();
  let deleted = 0;
  let blobsDeleted = 0;
  for (;;) {
    const rows = await queryRows<{ blob_key: string }>(
      em,
      sql`delete from exports where id in (select id from exports where expires_at <= ${now} limit ${BATCH} for update skip locked) returning blob_key`,
    );
    deleted += rows.length;
    blobsDeleted += await deleteOrphanedBlobs(em, deps.blobStore, [...new Set(rows.map((row) => row.blob_key))]);
    if (rows.length < BATCH) return { deleted, blobsDeleted };
  }
}
