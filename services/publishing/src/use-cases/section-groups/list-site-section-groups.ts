import type { EntityManager } from "@mikro-orm/postgresql";
import { compareStringKeys, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { structureOrder } from "../shared/top-level.js";

export interface ListSiteSectionGroupsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  page: PageRequestLike | undefined;
}

/** One page of a site's section groups in structure order (a nested group after its parent), each with its children, for any member. */
export async function listSiteSectionGroups(em: EntityManager, input: ListSiteSectionGroupsInput, deps: UseCaseDeps): Promise<Page<SectionGroupView>> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const cursor = readPageRequest(input.page, "groups:order,id", ["string", "string"]);
  const [groups, order] = await Promise.all([em.find(SiteSectionGroup, { siteId: site.id }), structureOrder(em, site.id)]);
  const keyOf = (group: SiteSectionGroup) => [String(order.get(group.id) ?? 0).padStart(10, "0"), group.id];
  const sorted = groups.map((group) => ({ group, key: keyOf(group) })).sort((a, b) => compareStringKeys(a.key, b.key));
  const page = pageOfSorted(sorted, (item) => item.key, cursor);
  return {
    ...page,
    items: await sectionGroupViews(
      em,
      deps,
      access,
      site,
      page.items.map((item) => item.group),
    ),
  };
}
