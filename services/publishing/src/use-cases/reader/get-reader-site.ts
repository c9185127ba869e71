import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { Customization } from "../../domain/customization/customization.js";
import { ShareLink } from "../../domain/share-link.js";
import { Site } from "../../domain/site.js";
import { SiteExternalLink } from "../../domain/site-external-link.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import { SiteSpace } from "../../domain/site-space.js";
import { siteCustomization, siteSpaceCustomization } from "../shared/customization.js";
import { effectiveDefaultSectionId } from "../shared/sections.js";
import { levelDefaults } from "../shared/sites.js";
import { isLive } from "../shared/structure.js";

export interface ReaderSiteSpaceView {
  siteSpace: SiteSpace;
  isDefault: boolean;
  /** What it shows when it overrides the site's customization; null otherwise. */
  customization: Customization | null;
}

export type ReaderItemView =
  | { kind: "section"; section: SiteSection; isDefault: boolean; siteSpaces: ReaderSiteSpaceView[] }
  | { kind: "group"; group: SiteSectionGroup; children: ReaderItemView[] }
  | { kind: "link"; link: SiteExternalLink };

export interface ReaderSiteView {
  site: Site;
  customization: Customization;
  /** The live top level (a site with sections); empty otherwise. */
  items: ReaderItemView[];
  /** The live site-spaces (a site without sections); empty otherwise. */
  siteSpaces: ReaderSiteSpaceView[];
}

/** A published site by its custom hostname, or by its organization and its basename (or its id). */
async function findPublishedSite(em: EntityManager, lookup: { hostname: string; organizationId: string; site: string }): Promise<Site> {
  let site: Site | null = null;
  if (lookup.hostname !== "") site = await em.findOne(Site, { hostname: lookup.hostname.toLowerCase(), published: true });
  else if (isId(lookup.organizationId) && lookup.site !== "") {
    site = await em.findOne(Site, { organizationId: lookup.organizationId, basename: lookup.site, published: true });
    if (!site && isId(lookup.site)) site = await em.findOne(Site, { organizationId: lookup.organizationId, id: lookup.site, published: true });
  }
  if (!site) throw AppError.notFound("Site");
  return site;
}

/**
 * The reader's view of a published site, for any visitor (the reader decides who sees what): the
 * site, its customization, its live structure (drafts left out, and everything in them; site-spaces
 * whose space content deleted left out), each level's default as readers see it.
 */
export async function getReaderSite(em: EntityManager, lookup: { hostname: string; organizationId: string; site: string }): Promise<ReaderSiteView> {
  const site = await findPublishedSite(em, lookup);
  const order = { orderBy: { position: "asc", id: "asc" } } as const;
  const [sections, groups, links, siteSpaces, defaults] = await Promise.all([
    em.find(SiteSection, { siteId: site.id }, order),
    em.find(SiteSectionGroup, { siteId: site.id }, order),
    em.find(SiteExternalLink, { siteId: site.id }, order),
    em.find(SiteSpace, { siteId: site.id, spaceDeleted: false, draft: false }, order),
    levelDefaults(em, site.id),
  ]);
  const siteSpaceView = (siteSpace: SiteSpace): ReaderSiteSpaceView => ({
    siteSpace,
    isDefault: defaults.get(siteSpace.sectionId ?? "") === siteSpace.id,
    customization: siteSpace.customizationOverride ? siteSpaceCustomization(site, siteSpace).customization : null,
  });
  const customization = siteCustomization(site).customization;
  if (sections.length === 0) return { site, customization, items: [], siteSpaces: siteSpaces.map(siteSpaceView) };

  const defaultSectionId = effectiveDefaultSectionId(site, sections);
  const level = (groupId: string | null): ReaderItemView[] => {
    const members: { position: number; id: string; item: ReaderItemView }[] = [];
    for (const section of sections.filter(isLive)) {
      if ((section.sectionGroupId ?? null) !== groupId) continue;
      const spaces = siteSpaces.filter((siteSpace) => siteSpace.sectionId === section.id).map(siteSpaceView);
      members.push({
        position: section.position,
        id: section.id,
        item: { kind: "section", section, isDefault: section.id === defaultSectionId, siteSpaces: spaces },
      });
    }
    for (const group of groups.filter(isLive)) {
      if ((group.parentGroupId ?? null) === groupId)
        members.push({ position: group.position, id: group.id, item: { kind: "group", group, children: level(group.id) } });
    }
    for (const link of links.filter(isLive)) {
      if ((link.sectionGroupId ?? null) === groupId) members.push({ position: link.position, id: link.id, item: { kind: "link", link } });
    }
    return members.sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1)).map((member) => member.item);
  };
  return { site, customization, items: level(null), siteSpaces: [] };
}

/** Whether a key is an active share link's of the site (a deactivated or deleted link's is not, at once). */
export async function checkShareKey(em: EntityManager, input: { siteId: string; key: string }): Promise<boolean> {
  if (!isId(input.siteId) || input.key === "" || input.key.length > 128) return false;
  return (await em.count(ShareLink, { siteId: input.siteId, key: input.key, active: true })) > 0;
}
