import type { EntityManager } from "@mikro-orm/postgresql";
import type { Site } from "../../domain/site.js";
import { SiteExternalLink } from "../../domain/site-external-link.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { OrganizationCaller } from "./access.js";
import { sectionViews, type SectionView } from "./sections.js";
import { siteSpaceViews, type SiteSpaceView, type SpaceSource } from "./site-spaces.js";

/** An external link of a site's structure. */
export interface ExternalLinkView {
  link: SiteExternalLink;
  site: Site;
}

/** A group with its children (sections, groups, links) in order, and its own sections among them. */
export interface SectionGroupView {
  group: SiteSectionGroup;
  /** Its sections (direct children) in order, each with its visible site-spaces (GitBook's deprecated `sections`). */
  sections: SectionView[];
  /** Its children in order. */
  children: StructureItemView[];
}

/** An item of a level of the structure. */
export type StructureItemView =
  | { kind: "section"; section: SectionView }
  | { kind: "group"; group: SectionGroupView }
  | { kind: "link"; link: ExternalLinkView };

/** A site's structure: its top level when it has sections, else its site-spaces. */
export type SiteStructureView = { type: "sections"; items: StructureItemView[] } | { type: "siteSpaces"; siteSpaces: SiteSpaceView[] };

/**
 * Whether visitors see an item: drafts are not live, and nothing inside a draft is. The one rule
 * for what a site shows its readers (the published view, the reader); members listing the
 * structure see drafts, flagged.
 */
export function isLive(item: { draft: boolean }): boolean {
  return !item.draft;
}

export interface StructureOptions {
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey?: string;
  /** Only what visitors see: drafts (and everything in them) left out. */
  liveOnly?: boolean;
}

/** The whole tree of a site with sections, built at once: its top level, and every group by id. */
export interface StructureTree {
  items: StructureItemView[];
  groups: Map<string, SectionGroupView>;
}

/** The site's structure tree as the caller sees it (visible site-spaces only), with every section's site-spaces. */
export async function siteStructureTree(
  em: EntityManager,
  deps: SpaceSource,
  access: OrganizationCaller,
  site: Site,
  options: StructureOptions = {},
): Promise<StructureTree> {
  const live = <T extends { draft: boolean }>(items: T[]) => (options.liveOnly ? items.filter(isLive) : items);
  const order = { orderBy: { position: "asc", id: "asc" } } as const;
  const [sections, groups, links] = await Promise.all([
    em.find(SiteSection, { siteId: site.id }, order),
    em.find(SiteSectionGroup, { siteId: site.id }, order),
    em.find(SiteExternalLink, { siteId: site.id }, order),
  ]);
  const views = new Map((await sectionViews(em, deps, access, site, live(sections), options.shareKey ?? "", options)).map((view) => [view.section.id, view]));
  const groupViews = new Map<string, SectionGroupView>();
  const level = (groupId: string | null): StructureItemView[] => {
    const members: { position: number; id: string; item: StructureItemView }[] = [];
    for (const section of live(sections))
      if ((section.sectionGroupId ?? null) === groupId)
        members.push({ position: section.position, id: section.id, item: { kind: "section", section: views.get(section.id)! } });
    for (const link of live(links))
      if ((link.sectionGroupId ?? null) === groupId) members.push({ position: link.position, id: link.id, item: { kind: "link", link: { link, site } } });
    for (const group of live(groups)) {
      if ((group.parentGroupId ?? null) !== groupId) continue;
      const children = level(group.id);
      const view: SectionGroupView = { group, children, sections: children.flatMap((child) => (child.kind === "section" ? [child.section] : [])) };
      groupViews.set(group.id, view);
      members.push({ position: group.position, id: group.id, item: { kind: "group", group: view } });
    }
    return members.sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1)).map((member) => member.item);
  };
  return { items: level(null), groups: groupViews };
}

/** The site's whole structure in order as the caller sees it (visible site-spaces only). */
export async function siteStructure(
  em: EntityManager,
  deps: SpaceSource,
  access: OrganizationCaller,
  site: Site,
  options: StructureOptions = {},
): Promise<SiteStructureView> {
  if ((await em.count(SiteSection, { siteId: site.id })) > 0)
    return { type: "sections", items: (await siteStructureTree(em, deps, access, site, options)).items };
  const siteSpaces = await em.find(
    SiteSpace,
    { siteId: site.id, spaceDeleted: false, ...(options.liveOnly ? { draft: false } : {}) },
    { orderBy: { position: "asc", id: "asc" } },
  );
  const views = await siteSpaceViews(em, deps, access, site, siteSpaces);
  return { type: "siteSpaces", siteSpaces: views.map((view) => ({ ...view, shareKey: options.shareKey ?? "" })) };
}

/** Every site-space the structure shows, in order. */
export function structureSiteSpaces(structure: SiteStructureView): SiteSpaceView[] {
  if (structure.type === "siteSpaces") return structure.siteSpaces;
  const walk = (items: StructureItemView[]): SiteSpaceView[] =>
    items.flatMap((item) => (item.kind === "section" ? item.section.siteSpaces : item.kind === "group" ? walk(item.group.children) : []));
  return walk(structure.items);
}

/** Every item of the tree in structure order (pre-order): what lists of sections or groups follow. */
export function flattenStructure(items: StructureItemView[]): StructureItemView[] {
  return items.flatMap((item) => (item.kind === "group" ? [item, ...flattenStructure(item.group.children)] : [item]));
}
