import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSpace } from "../../domain/site-space.js";
import { touchSpaces } from "../shared/publications.js";
import { touchSitesOfSpaces } from "../shared/sites.js";

/**
 * Content deleted (`space.deleted`) or restored (`space.restored`) a space: its site-spaces, in
 * every site, are hidden or shown again. Runs in the consumer's transaction; nothing else changes
 * (their paths, conditions and order are kept for the restore).
 */
export async function setSpaceDeleted(em: EntityManager, input: { spaceId: string; deleted: boolean }): Promise<void> {
  await em.nativeUpdate(SiteSpace, { spaceId: input.spaceId, spaceDeleted: !input.deleted }, { spaceDeleted: input.deleted });
  await touchSitesOfSpaces(em, [input.spaceId]);
  touchSpaces(em, [input.spaceId]);
}
