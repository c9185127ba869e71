import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Site } from "../../domain/site.js";
import type { UseCaseDeps } from "../../deps.js";
import { isId, type CallerInput, requireSiteCaller, siteLevels } from "../shared/access.js";
import { siteViews, type SiteView } from "../shared/sites.js";

/** Ids one BatchGetSites call may ask for. */
export const BATCH_GET_SITES_MAX = 1000;

export interface BatchGetSitesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteIds: readonly string[];
}

/**
 * The organization's sites among `siteIds`, as GetSite shows them to the caller (a member, or a guest
 * for the sites granted to them; NOT_FOUND "Organization" for anyone else), in the order asked, each once: unknown ids and other
 * organizations' sites are left out. One query for the sites, the views' own for the page.
 */
export async function batchGetSites(em: EntityManager, input: BatchGetSitesInput, deps: UseCaseDeps): Promise<SiteView[]> {
  if (input.siteIds.length > BATCH_GET_SITES_MAX) throw AppError.invalidArgument(`site_ids: at most ${BATCH_GET_SITES_MAX} ids`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const ids = [...new Set(input.siteIds.filter(isId))];
  if (ids.length === 0) return [];
  const byId = new Map((await em.find(Site, { id: { $in: ids }, organizationId: access.organizationId })).map((site) => [site.id, site]));
  // Sites the caller cannot see (a guest's not granted) are left out like unknown ones.
  const levels = await siteLevels(em, access, [...byId.keys()]);
  return siteViews(
    em,
    access,
    ids.flatMap((id) => (levels.get(id)?.level ? (byId.get(id) ?? []) : [])),
  );
}
