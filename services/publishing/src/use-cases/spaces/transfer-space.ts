import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { removeSiteSpaces } from "../shared/removal.js";

/**
 * Content moved a space to another organization (`space.transferred`): it leaves the sites of the
 * organization it came from (a site publishes only its own organization's spaces). Runs in the
 * consumer's transaction.
 */
export async function transferSpace(
  em: EntityManager,
  input: { spaceId: string; fromOrganizationId: string },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<void> {
  await removeSiteSpaces(em, deps, await em.find(SiteSpace, { spaceId: input.spaceId, organizationId: input.fromOrganizationId }), null);
}
