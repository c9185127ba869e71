import type { EntityManager } from "@mikro-orm/postgresql";
import { ImportRun } from "../domain/import-run.js";

/** Deletes a purged space's import runs (finished long ago: the space was deleted days before), in the purge's transaction. */
export async function purgeImportRuns(em: EntityManager, spaceId: string): Promise<void> {
  await em.nativeDelete(ImportRun, { spaceId });
}
