import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import type { SpaceSource } from "./site-spaces.js";
import { isId, type OrganizationCaller } from "./access.js";
import { siteStructureTree, type SectionGroupView } from "./structure.js";

export type { SectionGroupView } from "./structure.js";

/** A section group of the site; another site's (or none) is "Site section group not found". */
export async function findSectionGroup(em: EntityManager, site: Site, groupId: string, options: { lock?: boolean } = {}): Promise<SiteSectionGroup> {
  return findOwned(em, SiteSectionGroup, { siteId: site.id }, groupId, options);
}

/** Groups (in the order given) with their children as the caller sees them. */
export async function sectionGroupViews(
  em: EntityManager,
  deps: SpaceSource,
  access: OrganizationCaller,
  site: Site,
  groups: SiteSectionGroup[],
  shareKey = "",
): Promise<SectionGroupView[]> {
  if (groups.length === 0) return [];
  const tree = await siteStructureTree(em, deps, access, site, { shareKey });
  return groups.map((group) => tree.groups.get(group.id)!);
}

/** The group named in a body (`field`) to put something in: "" is the top level (null); another site's or none is refused. */
export async function parentGroup(em: EntityManager, site: Site, groupId: string, field: string): Promise<SiteSectionGroup | null> {
  if (groupId === "") return null;
  const found = isId(groupId) ? await em.findOne(SiteSectionGroup, { id: groupId, siteId: site.id }) : null;
  if (!found) throw AppError.invalidArgument(`${field}: no section group ${groupId} in this site`);
  return found;
}
