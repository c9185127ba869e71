import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";

/** An item of a site's top level: a section outside groups, or a group. */
export type TopLevelItem = { kind: "section"; entity: SiteSection } | { kind: "group"; entity: SiteSectionGroup };

/** The site's top level in order (groups and sections outside groups share one order). */
export async function topLevelItems(em: EntityManager, siteId: string): Promise<TopLevelItem[]> {
  const [sections, groups] = await Promise.all([
    em.find(SiteSection, { siteId, sectionGroupId: null }),
    em.find(SiteSectionGroup, { siteId }),
  ]);
  const items: TopLevelItem[] = [...sections.map((entity) => ({ kind: "section" as const, entity })), ...groups.map((entity) => ({ kind: "group" as const, entity }))];
  return items.sort((a, b) => a.entity.position - b.entity.position || (a.entity.id < b.entity.id ? -1 : 1));
}

/** The position after the top level's last item. */
export async function nextTopLevelPosition(em: EntityManager, siteId: string): Promise<number> {
  const items = await topLevelItems(em, siteId);
  return items.length > 0 ? items[items.length - 1]!.entity.position + 1 : 0;
}

/** Numbers items 0, 1, 2, … in the order given. */
export function renumber(items: { position: number }[]): void {
  items.forEach((item, position) => {
    if (item.position !== position) item.position = position;
  });
}
