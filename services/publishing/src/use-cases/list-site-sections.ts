import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSection } from "../domain/site-section.js";
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

const SORT: KeysetSort<SiteSection> = { fields: ["position", "id"], direction: "asc" };

/** One page of a site's sections in order, each with its visible site-spaces, for any member. */
export async function listSiteSections(em: EntityManager, input: ListSiteSectionsInput, deps: UseCaseDeps): Promise<Page<SectionView>> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const page = await findPage(em, SiteSection, { siteId: site.id }, SORT, input.page);
  return { ...page, items: await sectionViews(em, deps, access, site, page.items, shareKey) };
}
