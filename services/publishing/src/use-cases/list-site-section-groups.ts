import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSectionGroup } from "../domain/site-section-group.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { sectionGroupViews, type SectionGroupView } from "./shared/section-groups.js";
import { findSite } from "./shared/sites.js";

export interface ListSiteSectionGroupsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  page: PageRequestLike | undefined;
}

const SORT: KeysetSort<SiteSectionGroup> = { fields: ["position", "id"], direction: "asc" };

/** One page of a site's section groups in order, each with its sections, for any member. */
export async function listSiteSectionGroups(em: EntityManager, input: ListSiteSectionGroupsInput, deps: UseCaseDeps): Promise<Page<SectionGroupView>> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const page = await findPage(em, SiteSectionGroup, { siteId: site.id }, SORT, input.page);
  return { ...page, items: await sectionGroupViews(em, deps, access, site, page.items) };
}
