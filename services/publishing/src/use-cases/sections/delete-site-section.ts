import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import { siteSectionDeleted, siteUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { removeSiteSpaces } from "../shared/removal.js";
import { findSiteSection } from "../shared/sections.js";
import { findSite } from "../shared/sites.js";

export interface DeleteSiteSectionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  sectionId: string;
}

/**
 * Removes a section with its site-spaces (site admins only); done when it no longer
 * exists. When it was the default, the first remaining section becomes the default. Records
 * `site_space.deleted` for each of its site-spaces, `site_section.deleted`, and `site.updated` when
 * the default section moved.
 */
export async function deleteSiteSection(em: EntityManager, input: DeleteSiteSectionInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    let section: SiteSection;
    try {
      section = await findSiteSection(tx, site, input.sectionId);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    await removeSiteSpaces(tx, deps, await tx.find(SiteSpace, { siteId: site.id, sectionId: section.id }), access.caller);
    tx.remove(section);
    const event = { organizationId: site.organizationId, actor: access.caller };
    recordEvent(tx, siteSectionDeleted, { ...event, payload: { siteId: site.id, sectionId: section.id } });
    if (site.defaultSectionId === section.id) {
      const next = await tx.findOne(SiteSection, { siteId: site.id, id: { $ne: section.id } }, { orderBy: { position: "asc", id: "asc" } });
      site.defaultSectionId = next?.id ?? null;
      site.updatedAt = deps.clock();
      recordEvent(tx, siteUpdated, {
        ...event,
        payload: { siteId: site.id, changedFields: ["defaultSiteSection"], changes: { defaultSiteSection: { from: section.id, to: site.defaultSectionId } } },
      });
    }
  });
}
