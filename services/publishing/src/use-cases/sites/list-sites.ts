import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { raw } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { Site, validateType } from "../../domain/site.js";
import type { UseCaseDeps } from "../../deps.js";
import { isId, type CallerInput, requireSiteCaller, visibleSitesFilter } from "../shared/access.js";
import { siteViews, type SiteView } from "../shared/sites.js";

export interface ListSitesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** Only sites publishing this space ("" for any). */
  spaceId: string;
  /** Only sites whose title contains this text, case-insensitively ("" for any). */
  title: string;
  published: boolean | undefined;
  /** Only sites of these types (empty for any). */
  types: string[];
  page: PageRequestLike | undefined;
}

const SORT: KeysetSort<Site> = { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] };

/** One page of the organization's sites the caller can see (a guest: those granted), oldest first, on the (organization, createdAt, id) index. */
export async function listSites(em: EntityManager, input: ListSitesInput, deps: UseCaseDeps): Promise<Page<SiteView>> {
  const types = input.types.map(validateType);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const conditions: FilterQuery<Site>[] = [{ organizationId: access.organizationId }];
  // Guests list only the sites granted to them or their teams.
  const visible = visibleSitesFilter(access);
  if (visible) conditions.push(visible);
  if (input.spaceId) {
    // A space filter that is not a space id matches no site.
    conditions.push(
      isId(input.spaceId)
        ? { id: { $in: raw(`select site_id from site_spaces where space_id = ? and not space_deleted`, [input.spaceId]) } }
        : { id: { $in: [] } },
    );
  }
  if (input.title) conditions.push({ title: { $ilike: `%${input.title.replace(/[\\%_]/g, "\\$&")}%` } });
  if (input.published !== undefined) conditions.push({ published: input.published });
  if (types.length > 0) conditions.push({ type: { $in: types } });
  const page = await findPage(em, Site, { $and: conditions }, SORT, input.page);
  return { ...page, items: await siteViews(em, access, page.items) };
}
