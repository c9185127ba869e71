import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteRedirect } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import type { SiteRedirectView } from "../shared/site-redirects.js";
import { findSite } from "../shared/sites.js";

export interface ListSiteRedirectsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** Redirects whose source contains it (case-insensitively); "" for all. */
  search: string;
  draft: boolean;
  /** createdAt (""), updatedAt or source. */
  orderBy: string;
  page: PageRequestLike | undefined;
}

/** GitBook's orders: newest first, most recently changed first, or by source. */
const SORTS: Record<string, KeysetSort<SiteRedirect>> = {
  createdAt: { fields: ["createdAt", "id"], direction: "desc", dateFields: ["createdAt"] },
  updatedAt: { fields: ["lastChangedAt", "id"], direction: "desc", dateFields: ["lastChangedAt"] },
  source: { fields: ["source", "id"], direction: "asc" },
};

/** One page of a site's live (or draft) redirects, automatic ones included (members). */
export async function listSiteRedirects(em: EntityManager, input: ListSiteRedirectsInput, deps: UseCaseDeps): Promise<Page<SiteRedirectView>> {
  const sort = SORTS[input.orderBy || "createdAt"];
  if (!sort) throw AppError.invalidArgument(`orderBy: must be one of ${Object.keys(SORTS).join(", ")}`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const conditions: FilterQuery<SiteRedirect>[] = [{ siteId: site.id, draft: input.draft }];
  if (input.search) conditions.push({ source: { $ilike: `%${input.search.replace(/[\\%_]/g, "\\$&")}%` } });
  const page = await findPage(em, SiteRedirect, { $and: conditions }, sort, input.page);
  return { ...page, items: page.items.map((redirect) => ({ redirect })) };
}
