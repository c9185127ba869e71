import type { EntityManager } from "@mikro-orm/postgresql";
import type { Customization } from "../domain/customization/customization.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization } from "./shared/access.js";
import { siteCustomization, siteSpaceCustomization, type CustomizationView } from "./shared/customization.js";
import { requireActiveShareKey } from "./shared/share-links.js";
import { findSite, siteView, type SiteView } from "./shared/sites.js";
import { siteStructure, structureSiteSpaces, type SiteStructureView } from "./shared/structure.js";
import type { GetSiteStructureInput } from "./get-site-structure.js";

export interface PublishedContentSiteView {
  site: SiteView;
  structure: SiteStructureView;
  /** The site's customization. */
  customization: CustomizationView;
  /** What each site-space with an override shows instead (its site's customization with the override applied). */
  siteSpaceCustomizations: { siteSpaceId: string; customization: Customization }[];
}

/**
 * Everything a reader of the site needs in one answer (GitBook's PublishedContentSite): the site,
 * its structure as the caller sees it, and its customizations. For any member of the organization.
 */
export async function getPublishedContentSite(em: EntityManager, input: GetSiteStructureInput, deps: UseCaseDeps): Promise<PublishedContentSiteView> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const view = await siteView(em, access, site);
  const structure = await siteStructure(em, deps, access, site, shareKey);
  const siteSpaceCustomizations = structureSiteSpaces(structure)
    .filter((siteSpaceView) => siteSpaceView.siteSpace.customizationOverride)
    .map((siteSpaceView) => ({ siteSpaceId: siteSpaceView.siteSpace.id, customization: siteSpaceCustomization(site, siteSpaceView.siteSpace).customization }));
  return { site: view, structure, customization: siteCustomization(site), siteSpaceCustomizations };
}
