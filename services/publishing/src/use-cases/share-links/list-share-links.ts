import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { ShareLink } from "../../domain/share-link.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import type { ShareLinkView } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";

export interface ListShareLinksInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** Links whose name contains it (case-insensitively) or whose key is it; "" for all. */
  search: string;
  page: PageRequestLike | undefined;
}

const SORT: KeysetSort<ShareLink> = { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] };

/** One page of a site's share links, oldest first. Their keys open the site: site admins only. */
export async function listShareLinks(em: EntityManager, input: ListShareLinksInput, deps: UseCaseDeps): Promise<Page<ShareLinkView>> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "see a site's share links");
  const site = await findSite(em, access, input.siteId);
  const conditions: FilterQuery<ShareLink>[] = [{ siteId: site.id }];
  if (input.search) conditions.push({ $or: [{ name: { $ilike: `%${input.search.replace(/[\\%_]/g, "\\$&")}%` } }, { key: input.search }] });
  const page = await findPage(em, ShareLink, { $and: conditions }, SORT, input.page);
  return { ...page, items: page.items.map((shareLink) => ({ shareLink, site })) };
}
