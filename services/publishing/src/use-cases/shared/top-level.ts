import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { SiteExternalLink } from "../../domain/site-external-link.js";
import { SiteSection } from "../../domain/site-section.js";
import { GROUP_DEPTH_MAX, SiteSectionGroup } from "../../domain/site-section-group.js";

/**
 * An item of one level of a site's structure (the top level, or a group's children): a section, a
 * group or an external link. The items of a level share one order (`position`).
 */
export type LevelItem = { kind: "section"; entity: SiteSection } | { kind: "group"; entity: SiteSectionGroup } | { kind: "link"; entity: SiteExternalLink };
export type TopLevelItem = LevelItem;

/** The group an item is in; null at the top level. */
export function parentOf(item: LevelItem): string | null {
  return (item.kind === "group" ? item.entity.parentGroupId : item.entity.sectionGroupId) ?? null;
}

/** Puts an item in a group (null: the top level); its position is the caller's to set. */
export function setParent(item: LevelItem, groupId: string | null): void {
  if (item.kind === "group") item.entity.parentGroupId = groupId;
  else item.entity.sectionGroupId = groupId;
}

function byPosition(a: LevelItem, b: LevelItem): number {
  return a.entity.position - b.entity.position || (a.entity.id < b.entity.id ? -1 : 1);
}

/** The items of one level of the site in order: the top level (`groupId` null) or a group's children. */
export async function levelItems(em: EntityManager, siteId: string, groupId: string | null): Promise<LevelItem[]> {
  const [sections, groups, links] = await Promise.all([
    em.find(SiteSection, { siteId, sectionGroupId: groupId }),
    em.find(SiteSectionGroup, { siteId, parentGroupId: groupId }),
    em.find(SiteExternalLink, { siteId, sectionGroupId: groupId }),
  ]);
  const items: LevelItem[] = [
    ...sections.map((entity) => ({ kind: "section" as const, entity })),
    ...groups.map((entity) => ({ kind: "group" as const, entity })),
    ...links.map((entity) => ({ kind: "link" as const, entity })),
  ];
  return items.sort(byPosition);
}

/** The site's top level in order (sections outside groups, top-level groups, top-level links). */
export function topLevelItems(em: EntityManager, siteId: string): Promise<LevelItem[]> {
  return levelItems(em, siteId, null);
}

/** The position after the last item of a level. */
export async function nextLevelPosition(em: EntityManager, siteId: string, groupId: string | null): Promise<number> {
  const items = await levelItems(em, siteId, groupId);
  return items.length > 0 ? items[items.length - 1]!.entity.position + 1 : 0;
}

/** The position after the top level's last item. */
export function nextTopLevelPosition(em: EntityManager, siteId: string): Promise<number> {
  return nextLevelPosition(em, siteId, null);
}

/** Numbers items 0, 1, 2, … in the order given. */
export function renumber(items: { position: number }[]): void {
  items.forEach((item, position) => {
    if (item.position !== position) item.position = position;
  });
}

/**
 * Moves an item to a level (a group, or the top level with null), at the end or next to a
 * sibling there, and renumbers the level it left and the one it joined. `field` names the sibling
 * reference in errors.
 */
export async function placeInLevel(
  em: EntityManager,
  siteId: string,
  item: LevelItem,
  groupId: string | null,
  position: { before?: string; after?: string; fields?: { before: string; after: string } } = {},
): Promise<number> {
  const from = parentOf(item);
  const siblings = (await levelItems(em, siteId, groupId)).filter((other) => other.entity.id !== item.entity.id);
  let index = siblings.length;
  const anchor = position.before || position.after;
  if (anchor) {
    const found = siblings.findIndex((other) => other.entity.id === anchor);
    const field = position.before ? (position.fields?.before ?? "before") : (position.fields?.after ?? "after");
    if (found < 0) throw AppError.invalidArgument(`${field}: no item ${anchor} at that level of the site's structure`);
    index = position.before ? found : found + 1;
  }
  setParent(item, groupId);
  siblings.splice(index, 0, item);
  renumber(siblings.map((other) => other.entity));
  if (from !== groupId) {
    await em.flush();
    renumber((await levelItems(em, siteId, from)).filter((other) => other.entity.id !== item.entity.id).map((other) => other.entity));
  }
  return index;
}

/** How deep a group is (a top-level group is 1), following its parents. */
export async function groupDepth(em: EntityManager, siteId: string, groupId: string | null): Promise<number> {
  let depth = 0;
  for (let current = groupId; current; depth++) {
    const group = await em.findOne(SiteSectionGroup, { id: current, siteId });
    current = group?.parentGroupId ?? null;
    if (depth > GROUP_DEPTH_MAX + 1) break;
  }
  return depth;
}

/** How many levels of groups a group holds below itself (0 without nested groups). */
export async function nestedGroupLevels(em: EntityManager, siteId: string, groupId: string): Promise<number> {
  const children = await em.find(SiteSectionGroup, { siteId, parentGroupId: groupId });
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, 1 + (await nestedGroupLevels(em, siteId, child.id)));
  return deepest;
}

/** Refuses to put a group (holding `levelsBelow` levels of groups) into `parentId` when it would nest too deep or into itself. */
export async function checkGroupPlacement(em: EntityManager, siteId: string, groupId: string | null, parentId: string | null, field: string): Promise<void> {
  if (!parentId) return;
  for (let current: string | null = parentId; current; ) {
    if (current === groupId) throw AppError.invalidArgument(`${field}: a section group cannot be put in itself or in a group it contains`);
    current = (await em.findOne(SiteSectionGroup, { id: current, siteId }))?.parentGroupId ?? null;
  }
  const levelsBelow = groupId ? await nestedGroupLevels(em, siteId, groupId) : 0;
  if ((await groupDepth(em, siteId, parentId)) + 1 + levelsBelow > GROUP_DEPTH_MAX) {
    throw AppError.invalidArgument(`${field}: section groups nest at most ${GROUP_DEPTH_MAX} deep`);
  }
}

/** Every section, group and external link of the site by its place in structure order (pre-order: a group, then its children). */
export async function structureOrder(em: EntityManager, siteId: string): Promise<Map<string, number>> {
  const [sections, groups, links] = await Promise.all([
    em.find(SiteSection, { siteId }),
    em.find(SiteSectionGroup, { siteId }),
    em.find(SiteExternalLink, { siteId }),
  ]);
  const items: LevelItem[] = [
    ...sections.map((entity) => ({ kind: "section" as const, entity })),
    ...groups.map((entity) => ({ kind: "group" as const, entity })),
    ...links.map((entity) => ({ kind: "link" as const, entity })),
  ];
  const order = new Map<string, number>();
  const visit = (groupId: string | null) => {
    for (const item of items.filter((candidate) => parentOf(candidate) === groupId).sort(byPosition)) {
      order.set(item.entity.id, order.size);
      if (item.kind === "group") visit(item.entity.id);
    }
  };
  visit(null);
  return order;
}
