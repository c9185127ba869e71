import type { EntityManager } from "@mikro-orm/postgresql";
import { compareStringKeys, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSection } from "../domain/site-section.js";
import { SiteSectionGroup } from "../domain/site-section-group.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { sectionViews, type SectionView } from "./shared/sections.js";
import { requireActiveShareKey } from "./shared/share-links.js";
import { findSite } from "./shared/sites.js";

export interface ListSiteSectionsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
  page: PageRequestLike | undefined;
}


/** One page of a site's sections in order, each with its visible site-spaces, for any member. */
export async function listSiteSections(em: EntityManager, input: ListSiteSectionsInput, deps: UseCaseDeps): Promise<Page<SectionView>> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  // In structure order: the top level, a group's sections where the group is; a site's sections are few, sorted here.
  const cursor = readPageRequest(input.page, "sections:top,position,id", ["string", "string", "string"]);
  const [sections, groups] = await Promise.all([em.find(SiteSection, { siteId: site.id }), em.find(SiteSectionGroup, { siteId: site.id })]);
  const groupPosition = new Map(groups.map((group) => [group.id, group.position]));
  const pad = (n: number) => String(n).padStart(10, "0");
  const keyOf = (section: SiteSection) =>
    section.sectionGroupId ? [pad(groupPosition.get(section.sectionGroupId) ?? 0), pad(section.position + 1), section.id] : [pad(section.position), pad(0), section.id];
  const sorted = sections.map((section) => ({ section, key: keyOf(section) })).sort((a, b) => compareStringKeys(a.key, b.key));
  const page = pageOfSorted(sorted, (item) => item.key, cursor);
  return { ...page, items: await sectionViews(em, deps, access, site, page.items.map((item) => item.section), shareKey) };
}
