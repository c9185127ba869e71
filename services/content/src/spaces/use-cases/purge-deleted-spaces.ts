import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import { SPACE_RETENTION_MS, Space } from "../domain/space.js";
import { spacePurged } from "../../events.js";
import type { SpaceDeps } from "../../deps.js";

const BATCH = 100;

/**
 * Permanently removes the spaces deleted more than 7 days ago, with all their content, one space
 * per transaction (a failure leaves the others purged), with their branches, Git sync state and
 * import runs. Rows another replica is purging at the same
 * moment are skipped. Emits `space.purged` for each. File bytes no other space shares are deleted
 * from the blob store once the transaction committed. Logs its figures when it purged anything
 * (the job and the admin call alike).
 */
export async function purgeDeletedSpaces(em: EntityManager, deps: SpaceDeps): Promise<{ spaceIds: string[]; blobsDeleted: number }> {
  const started = performance.now();
  const cutoff = new Date(deps.clock().getTime() - SPACE_RETENTION_MS);
  const purged: string[] = [];
  let blobsDeleted = 0;
  const skipped = new Set<string>();
  for (;;) {
    const candidates = await em
      .fork()
      .find(
        Space,
        { deletedAt: { $lt: cutoff }, ...(skipped.size > 0 ? { id: { $nin: [...skipped] } } : {}) },
        { fields: ["id"], orderBy: { deletedAt: "asc", id: "asc" }, limit: BATCH },
      );
    if (candidates.length === 0) break;
    for (const { id } of candidates) {
      const orphanedBlobs = await deps.unitOfWork.run(em.fork(), async (tx) => {
        const [row] = await queryRows(
          tx,
          sql<{
            id: string;
            organization_id: string;
          }>`select id, organization_id from spaces where id = ${id} and deleted_at < ${cutoff} for update skip locked`,
        );
        if (!row) return undefined;
        const content = await deps.spaceContent.purgeContent(tx, id);
        await tx.nativeDelete(Space, { id });
        recordEvent(tx, spacePurged, { organizationId: row.organization_id, actor: null, payload: { spaceId: id } });
        return content.orphanedBlobs;
      });
      if (!orphanedBlobs) {
        skipped.add(id);
        continue;
      }
      purged.push(id);
      blobsDeleted += await deps.spaceContent.deleteOrphanedBlobs(em, deps.blobStore, orphanedBlobs);
    }
  }
  if (purged.length > 0) {
    deps.logger.info("purged deleted spaces", { spaces: purged.length, blobs: blobsDeleted, duration_ms: Math.round(performance.now() - started) });
  }
  return { spaceIds: purged, blobsDeleted };
}
