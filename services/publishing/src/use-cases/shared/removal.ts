import { recordEvent } from "@imprint/runtime";
import { touchSpaces } from "./publications.js";
import type { EntityManager } from "@mikro-orm/postgresql";
import { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import { siteSectionUpdated, siteSpaceDeleted, siteUpdated } from "../../events.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/**
 * Removes site-spaces (of any sites) in the current transaction: `site_space.deleted` for each;
 * a level (a section, or a site's root) whose default was among them gets its first remaining
 * site-space as the default (`site_section.updated` or `site.updated`), so a level keeps one.
 */
export async function removeSiteSpaces(em: EntityManager, deps: Pick<UseCaseDeps, "clock">, siteSpaces: SiteSpace[], actor: CallerInput | null): Promise<void> {
  if (siteSpaces.length === 0) return;
  const removed = new Set(siteSpaces.map((siteSpace) => siteSpace.id));
  touchSpaces(
    em,
    siteSpaces.map((siteSpace) => siteSpace.spaceId),
  );
  const sites = await em.find(Site, { id: { $in: [...new Set(siteSpaces.map((siteSpace) => siteSpace.siteId))] } });
  for (const site of sites) site.version += 1;
  for (const siteSpace of siteSpaces) {
    em.remove(siteSpace);
    recordEvent(em, siteSpaceDeleted, {
      organizationId: siteSpace.organizationId,
      actor,
      payload: { siteId: siteSpace.siteId, siteSpaceId: siteSpace.id, spaceId: siteSpace.spaceId },
    });
  }
  // A section whose default left takes its first remaining site-space.
  const sectionIds = [...new Set(siteSpaces.map((siteSpace) => siteSpace.sectionId).filter((id): id is string => typeof id === "string"))];
  for (const section of sectionIds.length > 0 ? await em.find(SiteSection, { id: { $in: sectionIds } }) : []) {
    if (!section.defaultSiteSpaceId || !removed.has(section.defaultSiteSpaceId)) continue;
    const next = await em.findOne(SiteSpace, { sectionId: section.id, id: { $nin: [...removed] } }, { orderBy: { position: "asc", id: "asc" } });
    const from = section.defaultSiteSpaceId;
    section.defaultSiteSpaceId = next?.id ?? null;
    recordEvent(em, siteSectionUpdated, {
      organizationId: section.organizationId,
      actor,
      payload: {
        siteId: section.siteId,
        sectionId: section.id,
        changedFields: ["defaultSiteSpace"],
        changes: { defaultSiteSpace: { from, to: section.defaultSiteSpaceId } },
      },
    });
  }
  for (const site of sites) {
    if (!site.defaultSiteSpaceId || !removed.has(site.defaultSiteSpaceId)) continue;
    const next = await em.findOne(SiteSpace, { siteId: site.id, sectionId: null, id: { $nin: [...removed] } }, { orderBy: { position: "asc", id: "asc" } });
    const from = site.defaultSiteSpaceId;
    site.defaultSiteSpaceId = next?.id ?? null;
    site.updatedAt = deps.clock();
    recordEvent(em, siteUpdated, {
      organizationId: site.organizationId,
      actor,
      payload: { siteId: site.id, changedFields: ["defaultSiteSpace"], changes: { defaultSiteSpace: { from, to: site.defaultSiteSpaceId } } },
    });
  }
}
