import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { publishingAuthView, type PublishingAuthView } from "../shared/publishing-auth.js";
import { findSite } from "../shared/sites.js";

export interface GetSitePublishingAuthInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/** A site's visitor authentication, with its signing key: site admins only. */
export async function getSitePublishingAuth(em: EntityManager, input: GetSitePublishingAuthInput, deps: UseCaseDeps): Promise<PublishingAuthView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "see a site's visitor authentication");
  const site = await findSite(em, access, input.siteId);
  return publishingAuthView(site);
}
