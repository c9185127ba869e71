import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { siteCustomization, type CustomizationView } from "../shared/customization.js";
import { findSite } from "../shared/sites.js";

export interface GetSiteCustomizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/** A site's customization, for any member of its organization: as set, else the default. */
export async function getSiteCustomization(em: EntityManager, input: GetSiteCustomizationInput, deps: UseCaseDeps): Promise<CustomizationView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  return siteCustomization(await findSite(em, access, input.siteId));
}
