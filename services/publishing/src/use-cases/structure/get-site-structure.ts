import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { requireActiveShareKey } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";
import { siteStructure, type SiteStructureView } from "../shared/structure.js";

export type { SiteStructureView, StructureItemView } from "../shared/structure.js";

export interface GetSiteStructureInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
}

/** A site's whole structure in order, for any member of its organization (visible site-spaces only). */
export async function getSiteStructure(em: EntityManager, input: GetSiteStructureInput, deps: UseCaseDeps): Promise<SiteStructureView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  return siteStructure(em, deps, access, site, { shareKey });
}
