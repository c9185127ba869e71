import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { removeSiteSpaces } from "../shared/removal.js";

/**
 * Content purged a space (`space.purged`): its site-spaces leave every site (`site_space.deleted`
 * each, a new default where needed). Runs in the consumer's transaction.
 */
export async function purgeSpace(em: EntityManager, input: { spaceId: string }, deps: Pick<UseCaseDeps, "clock">): Promise<void> {
  await removeSiteSpaces(em, deps, await em.find(SiteSpace, { spaceId: input.spaceId }), null);
}
