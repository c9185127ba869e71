import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { RevisionHeader } from "../store/caches.js";
import { findRevision } from "../store/revision-rows.js";
import type { RevisionDeps } from "../use-cases/deps.js";

/**
 * A committed revision a branch or a space points at. Heads, fork points and merge bases are
 * written only as committed revisions, so a missing one is a broken invariant, not bad input.
 */
export async function requireCommittedRevision(em: EntityManager, deps: Pick<RevisionDeps, "caches">, id: string): Promise<RevisionHeader> {
  const revision = await findRevision(em, deps.caches, id);
  if (!revision || revision.status !== "committed") throw new AppError("internal", `revision ${id} is missing`);
  return revision;
}
