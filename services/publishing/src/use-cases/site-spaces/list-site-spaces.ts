import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { compareStringKeys, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { requireActiveShareKey } from "../shared/share-links.js";
import { siteSpaceViews, type SiteSpaceView } from "../shared/site-spaces.js";
import { findSite, levelDefaults } from "../shared/sites.js";

export interface ListSiteSpacesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** True: only the defaults (of the root, or of each section); false: all but them; undefined: all. */
  isDefault: boolean | undefined;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
  page: PageRequestLike | undefined;
}

/** One page of a site's site-spaces in site order, for any member of its organization (with a share key: an active one of the site). */
export async function listSiteSpaces(em: EntityManager, input: ListSiteSpacesInput, deps: UseCaseDeps): Promise<Page<SiteSpaceView>> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  // The default of each level (the root, or each section).
  const defaults = [...(await levelDefaults(em, site.id)).values()];
  const cursor = readPageRequest(input.page, "site-spaces:section,position,id", ["string", "string", "string"]);
  // Site-spaces of deleted spaces are hidden until content restores them.
  const conditions: FilterQuery<SiteSpace>[] = [{ siteId: site.id, spaceDeleted: false }];
  if (input.isDefault === true) conditions.push({ id: { $in: defaults } });
  if (input.isDefault === false) conditions.push({ id: { $nin: defaults } });
  // In site order: by section (the root first), then by position; a site's site-spaces are few, sorted here.
  const [rows, sections] = await Promise.all([em.find(SiteSpace, { $and: conditions }), em.find(SiteSection, { siteId: site.id })]);
  const sectionOrder = new Map(sections.map((section) => [section.id, section.position]));
  const pad = (n: number) => String(n).padStart(10, "0");
  const keyOf = (siteSpace: SiteSpace) => [
    siteSpace.sectionId ? pad((sectionOrder.get(siteSpace.sectionId) ?? 0) + 1) : pad(0),
    pad(siteSpace.position),
    siteSpace.id,
  ];
  const sorted = rows.map((siteSpace) => ({ siteSpace, key: keyOf(siteSpace) })).sort((a, b) => compareStringKeys(a.key, b.key));
  const found = pageOfSorted(sorted, (item) => item.key, cursor);
  const page = { ...found, items: found.items.map((item) => item.siteSpace) };
  const views = await siteSpaceViews(em, deps, access, site, page.items);
  return { ...page, items: views.map((view) => ({ ...view, shareKey })) };
}
