import type { EntityManager } from "@mikro-orm/postgresql";
import { patchOverride, validateCustomizationOverride, CUSTOMIZATION_MAX_BYTES } from "../../domain/customization/customization.js";
import { AppError, recordEvent } from "@imprint/runtime";
import { siteSpaceUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { siteSpaceCustomization, siteSpaceOverride } from "../shared/customization.js";
import type { SiteSpaceCustomizationView } from "./get-site-space-customization.js";
import { findSiteSpace } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";

export interface OverrideSiteSpaceCustomizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  /** The settings to override, parsed (checked here): `null` resets one to the site's. */
  override: unknown;
}

/**
 * Overrides settings of the site's customization for one site-space (site admins only):
 * given settings replace the site-space's, `null` resets one. Records `site_space.updated`
 * (`customization`). Answers what the site-space now shows.
 */
export async function overrideSiteSpaceCustomization(
  em: EntityManager,
  input: OverrideSiteSpaceCustomizationInput,
  deps: UseCaseDeps,
): Promise<SiteSpaceCustomizationView> {
  const patch = validateCustomizationOverride(input.override);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const siteSpace = await findSiteSpace(tx, site, input.siteSpaceId, { lock: true });
    const override = patchOverride(siteSpaceOverride(siteSpace), patch);
    const stored = Object.keys(override).length > 0 ? JSON.stringify(override) : null;
    if (stored && Buffer.byteLength(stored) > CUSTOMIZATION_MAX_BYTES)
      throw AppError.invalidArgument(`body: the override must stay within ${CUSTOMIZATION_MAX_BYTES / 1024} KiB of JSON`);
    siteSpace.customizationOverride = stored;
    siteSpace.customizationUpdatedAt = deps.clock();
    recordEvent(tx, siteSpaceUpdated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, siteSpaceId: siteSpace.id, spaceId: siteSpace.spaceId, changedFields: ["customization"], changes: {} },
    });
    return { ...siteSpaceCustomization(site, siteSpace), hasOverrides: stored !== null };
  });
}
