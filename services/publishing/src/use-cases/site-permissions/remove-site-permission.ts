import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "../shared/access.js";
import { setGrant, type Grantee } from "../shared/site-grants.js";
import { findSite } from "../shared/sites.js";

export interface RemoveSitePermissionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  grantee: Grantee;
}

/**
 * Takes a user's or a team's grant on the site away (GitBook's removeUserFromSite,
 * removeTeamFromSite; site admins only); done when there was none. Answers whether there was one;
 * records `site_permission.removed` when there was.
 */
export async function removeSitePermission(em: EntityManager, input: RemoveSitePermissionInput, deps: UseCaseDeps): Promise<{ removed: boolean }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "share the site");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    return { removed: await setGrant(tx, deps, access.caller, site, input.grantee, null) };
  });
}
