import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateSiteCustomization } from "../../domain/customization/customization.js";
import { siteUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import type { CustomizationView } from "../shared/customization.js";
import { findSite } from "../shared/sites.js";

export interface UpdateSiteCustomizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** The whole customization, parsed (checked here against GitBook's schema). */
  customization: unknown;
}

/**
 * Replaces a site's customization, stored whole (site admins only); refused naming the
 * path of the first problem. Records `site.updated` (`customization`).
 */
export async function updateSiteCustomization(em: EntityManager, input: UpdateSiteCustomizationInput, deps: UseCaseDeps): Promise<CustomizationView> {
  const customization = validateSiteCustomization(input.customization);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const now = deps.clock();
    site.customization = JSON.stringify(customization);
    site.customizationUpdatedAt = now;
    site.updatedAt = now;
    recordEvent(tx, siteUpdated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, changedFields: ["customization"], changes: {} },
    });
    return { customization, updatedAt: now };
  });
}
