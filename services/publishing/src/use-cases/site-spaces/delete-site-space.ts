import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { removeSiteSpaces } from "../shared/removal.js";
import { findSiteSpace } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";

export interface DeleteSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
}

/**
 * Removes a site-space (site admins only; also one whose space is deleted); done when it
 * no longer exists. When it was the default, the first remaining site-space becomes the default (a
 * site with site-spaces always has one). Records `site_space.deleted`, and `site.updated` when the
 * default moved.
 */
export async function deleteSiteSpace(em: EntityManager, input: DeleteSiteSpaceInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    let target: SiteSpace;
    try {
      target = await findSiteSpace(tx, site, input.siteSpaceId, { hidden: true });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    await removeSiteSpaces(tx, deps, [target], access.caller);
  });
}
