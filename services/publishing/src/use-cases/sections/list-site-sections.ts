import type { EntityManager } from "@mikro-orm/postgresql";
import { compareStringKeys, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSection } from "../../domain/site-section.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { sectionViews, type SectionView } from "../shared/sections.js";
import { requireActiveShareKey } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";
import { structureOrder } from "../shared/top-level.js";

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
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  // In structure order (a group's sections where the group is); a site's sections are few, sorted here.
  const cursor = readPageRequest(input.page, "sections:order,id", ["string", "string"]);
  const [sections, order] = await Promise.all([em.find(SiteSection, { siteId: site.id }), structureOrder(em, site.id)]);
  const pad = (n: number) => String(n).padStart(10, "0");
  const keyOf = (section: SiteSection) => [pad(order.get(section.id) ?? 0), section.id];
  const sorted = sections.map((section) => ({ section, key: keyOf(section) })).sort((a, b) => compareStringKeys(a.key, b.key));
  const page = pageOfSorted(sorted, (item) => item.key, cursor);
  return {
    ...page,
    items: await sectionViews(
      em,
      deps,
      access,
      site,
      page.items.map((item) => item.section),
      shareKey,
    ),
  };
}
