import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteUserGrant } from "../../domain/site-permission.js";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface ListSiteUserPermissionsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  page: PageRequestLike | undefined;
}

const USER_SORT: KeysetSort<SiteUserGrant> = { fields: ["createdAt", "userId"], direction: "asc", dateFields: ["createdAt"] };
/** One page of the users granted a level on the site directly, oldest grant first (anyone who sees the site). */
export async function listSiteUserPermissions(em: EntityManager, input: ListSiteUserPermissionsInput, deps: UseCaseDeps): Promise<Page<SiteUserGrant>> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  return findPage(em, SiteUserGrant, { siteId: site.id }, USER_SORT, input.page);
}
