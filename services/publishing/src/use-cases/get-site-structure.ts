import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSpace } from "../domain/site-space.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { requireActiveShareKey } from "./shared/share-links.js";
import { siteSpaceViews, type SiteSpaceView } from "./shared/site-spaces.js";
import { effectiveDefaults, findSite } from "./shared/sites.js";

export interface GetSiteStructureInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
}

export interface SiteStructureView {
  /** "siteSpaces" until sites have sections. */
  type: "siteSpaces";
  siteSpaces: SiteSpaceView[];
}

/** A site's whole structure, for any member of its organization: its visible site-spaces in order. */
export async function getSiteStructure(em: EntityManager, input: GetSiteStructureInput, deps: UseCaseDeps): Promise<SiteStructureView> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const siteSpaces = await em.find(SiteSpace, { siteId: site.id, spaceDeleted: false }, { orderBy: { position: "asc", id: "asc" } });
  const defaultId = (await effectiveDefaults(em, [site.id])).get(site.id) ?? null;
  const views = await siteSpaceViews(deps, access, site, siteSpaces, defaultId);
  return { type: "siteSpaces", siteSpaces: views.map((view) => ({ ...view, shareKey })) };
}
