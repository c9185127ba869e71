import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite, siteView, type SiteView } from "../shared/sites.js";

export interface GetSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/** A site of the organization, for any of its members. */
export async function getSite(em: EntityManager, input: GetSiteInput, deps: UseCaseDeps): Promise<SiteView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  return siteView(em, access, await findSite(em, access, input.siteId));
}
