import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import type { UseCaseDeps } from "../../deps.js";
import { isId, type OrganizationAccess } from "./access.js";
import { sectionViews, type SectionView } from "./sections.js";

export interface SectionGroupView {
  group: SiteSectionGroup;
  /** Its sections in order, each with its visible site-spaces. */
  sections: SectionView[];
}

/** A section group of the site; another site's (or none) is "Site section group not found". */
export async function findSectionGroup(em: EntityManager, site: Site, groupId: string, options: { lock?: boolean } = {}): Promise<SiteSectionGroup> {
  const found = isId(groupId)
    ? await em.findOne(SiteSectionGroup, { id: groupId, siteId: site.id }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {})
    : null;
  if (!found) throw AppError.notFound("Site section group");
  return found;
}

/** Groups with their sections (in order) as the caller sees them. */
export async function sectionGroupViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "spaces">,
  access: OrganizationAccess,
  site: Site,
  groups: SiteSectionGroup[],
  shareKey = "",
): Promise<SectionGroupView[]> {
  const ids = groups.map((group) => group.id);
  const sections = ids.length > 0 ? await em.find(SiteSection, { siteId: site.id, sectionGroupId: { $in: ids } }, { orderBy: { position: "asc", id: "asc" } }) : [];
  const views = await sectionViews(em, deps, access, site, sections, shareKey);
  return groups.map((group) => ({ group, sections: views.filter((view) => view.section.sectionGroupId === group.id) }));
}
