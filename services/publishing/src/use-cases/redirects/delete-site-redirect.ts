import type { EntityManager } from "@mikro-orm/postgresql";
import { findOwnedOrNull } from "@imprint/runtime";
import { SiteRedirect } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { removeRedirect } from "../shared/site-redirects.js";
import { findSite } from "../shared/sites.js";

export interface DeleteSiteRedirectInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteRedirectId: string;
}

/** Deletes a redirect (site admins only); answers whether it existed. Records `site_redirect.deleted`. */
export async function deleteSiteRedirect(em: EntityManager, input: DeleteSiteRedirectInput, deps: UseCaseDeps): Promise<{ existed: boolean }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const redirect = await findOwnedOrNull(tx, SiteRedirect, { siteId: site.id }, input.siteRedirectId, { lock: true });
    if (!redirect) return { existed: false };
    removeRedirect(tx, site, redirect, access.caller);
    return { existed: true };
  });
}
