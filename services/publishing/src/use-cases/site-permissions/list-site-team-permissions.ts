import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type KeysetSort, type Page, type PageRequestLike } from "@imprint/runtime";
import { SiteTeamGrant } from "../../domain/site-permission.js";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface ListSiteTeamPermissionsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  page: PageRequestLike | undefined;
}

const TEAM_SORT: KeysetSort<SiteTeamGrant> = { fields: ["createdAt", "teamId"], direction: "asc", dateFields: ["createdAt"] };

/** One page of the teams granted a level on the site, oldest grant first (anyone who sees the site). */
export async function listSiteTeamPermissions(em: EntityManager, input: ListSiteTeamPermissionsInput, deps: UseCaseDeps): Promise<Page<SiteTeamGrant>> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  return findPage(em, SiteTeamGrant, { siteId: site.id }, TEAM_SORT, input.page);
}
