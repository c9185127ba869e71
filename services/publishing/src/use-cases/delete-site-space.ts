import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { SiteSpace } from "../domain/site-space.js";
import { recordPublishingEvent, siteSpaceDeleted, siteUpdated } from "../events.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { findSiteSpace } from "./shared/site-spaces.js";
import { findSite } from "./shared/sites.js";

export interface DeleteSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
}

/**
 * Removes a site-space (organization admins only); done when it no longer exists. When it was the
 * default, the first remaining site-space becomes the default (a site with site-spaces always has
 * one). Records `site_space.deleted`, and `site.updated` when the default moved.
 */
export async function deleteSiteSpace(em: EntityManager, input: DeleteSiteSpaceInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "admin");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    let target: SiteSpace;
    try {
      target = await findSiteSpace(tx, site, input.siteSpaceId);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    tx.remove(target);
    const event = { organizationId: site.organizationId, actor: access.caller };
    recordPublishingEvent(tx, deps, siteSpaceDeleted, { ...event, payload: { siteId: site.id, siteSpaceId: target.id, spaceId: target.spaceId } });
    if (site.defaultSiteSpaceId === target.id) {
      const next = await tx.findOne(SiteSpace, { siteId: site.id, id: { $ne: target.id } }, { orderBy: { position: "asc", id: "asc" } });
      site.defaultSiteSpaceId = next?.id ?? null;
      site.updatedAt = deps.clock();
      recordPublishingEvent(tx, deps, siteUpdated, {
        ...event,
        payload: { siteId: site.id, changedFields: ["defaultSiteSpace"], changes: { defaultSiteSpace: { from: target.id, to: site.defaultSiteSpaceId } } },
      });
    }
  });
}
