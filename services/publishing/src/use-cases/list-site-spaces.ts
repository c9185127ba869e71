import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSpace } from "../domain/site-space.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { siteSpaceViews, type SiteSpaceView } from "./shared/site-spaces.js";
import { findSite } from "./shared/sites.js";

export interface ListSiteSpacesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** True: only the default; false: all but the default; undefined: all. */
  isDefault: boolean | undefined;
  page: PageRequestLike | undefined;
}

const SORT: KeysetSort<SiteSpace> = { fields: ["position", "id"], direction: "asc" };

/** One page of a site's site-spaces in site order, for any member of its organization. */
export async function listSiteSpaces(em: EntityManager, input: ListSiteSpacesInput, deps: UseCaseDeps): Promise<Page<SiteSpaceView>> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const conditions: FilterQuery<SiteSpace>[] = [{ siteId: site.id }];
  if (input.isDefault === true) conditions.push(site.defaultSiteSpaceId ? { id: site.defaultSiteSpaceId } : { id: { $in: [] } });
  if (input.isDefault === false && site.defaultSiteSpaceId) conditions.push({ id: { $ne: site.defaultSiteSpaceId } });
  const page = await findPage(em, SiteSpace, { $and: conditions }, SORT, input.page);
  return { ...page, items: await siteSpaceViews(deps, access, site, page.items) };
}
