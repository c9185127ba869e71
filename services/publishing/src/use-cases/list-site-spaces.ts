import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteSpace } from "../domain/site-space.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { requireActiveShareKey } from "./shared/share-links.js";
import { siteSpaceViews, type SiteSpaceView } from "./shared/site-spaces.js";
import { effectiveDefaults, findSite } from "./shared/sites.js";

export interface ListSiteSpacesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** True: only the default; false: all but the default; undefined: all. */
  isDefault: boolean | undefined;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
  page: PageRequestLike | undefined;
}

const SORT: KeysetSort<SiteSpace> = { fields: ["position", "id"], direction: "asc" };

/** One page of a site's site-spaces in site order, for any member of its organization (with a share key: an active one of the site). */
export async function listSiteSpaces(em: EntityManager, input: ListSiteSpacesInput, deps: UseCaseDeps): Promise<Page<SiteSpaceView>> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const defaultId = (await effectiveDefaults(em, [site.id])).get(site.id) ?? null;
  // Site-spaces of deleted spaces are hidden until content restores them.
  const conditions: FilterQuery<SiteSpace>[] = [{ siteId: site.id, spaceDeleted: false }];
  if (input.isDefault === true) conditions.push(defaultId ? { id: defaultId } : { id: { $in: [] } });
  if (input.isDefault === false && defaultId) conditions.push({ id: { $ne: defaultId } });
  const page = await findPage(em, SiteSpace, { $and: conditions }, SORT, input.page);
  const views = await siteSpaceViews(deps, access, site, page.items, defaultId);
  return { ...page, items: views.map((view) => ({ ...view, shareKey })) };
}
