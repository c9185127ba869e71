import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { siteSpaceCustomization, siteSpaceOverride, type CustomizationView } from "../shared/customization.js";
import { findSiteSpace } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";

export interface SiteSpaceCustomizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
}

export interface SiteSpaceCustomizationView extends CustomizationView {
  /** Whether the site-space overrides any of its site's settings. */
  hasOverrides: boolean;
}

/** The customization a site-space shows (its site's, with its override applied), for any member. */
export async function getSiteSpaceCustomization(em: EntityManager, input: SiteSpaceCustomizationInput, deps: UseCaseDeps): Promise<SiteSpaceCustomizationView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const siteSpace = await findSiteSpace(em, site, input.siteSpaceId);
  return { ...siteSpaceCustomization(site, siteSpace), hasOverrides: siteSpaceOverride(siteSpace) !== null };
}
