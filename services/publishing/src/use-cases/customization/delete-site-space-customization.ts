import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { siteSpaceUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller } from "../shared/access.js";
import type { SiteSpaceCustomizationInput } from "./get-site-space-customization.js";
import { findSiteSpace } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";

/**
 * Removes a site-space's override, so it shows its site's customization again (organization
 * admins only). Answers whether there was one; records `site_space.updated` only then.
 */
export async function deleteSiteSpaceCustomization(em: EntityManager, input: SiteSpaceCustomizationInput, deps: UseCaseDeps): Promise<{ removed: boolean }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const siteSpace = await findSiteSpace(tx, site, input.siteSpaceId, { lock: true });
    if (!siteSpace.customizationOverride) return { removed: false };
    siteSpace.customizationOverride = null;
    siteSpace.customizationUpdatedAt = deps.clock();
    recordEvent(tx, siteSpaceUpdated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, siteSpaceId: siteSpace.id, spaceId: siteSpace.spaceId, changedFields: ["customization"], changes: {} },
    });
    return { removed: true };
  });
}
