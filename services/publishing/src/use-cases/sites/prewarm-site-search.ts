import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface PrewarmSiteSearchInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/** Content's PrewarmPublishedSearch takes at most this many spaces. */
const SPACES_PER_PREWARM = 100;

/**
 * Brings the search index of the site's spaces current (GitBook's prewarmSiteSearch), for anyone
 * who can see the site: its visitors are about to search. Content indexes only the published ones
 * and answers at once for a space already current; a site without spaces asks nothing.
 */
export async function prewarmSiteSearch(em: EntityManager, input: PrewarmSiteSearchInput, deps: UseCaseDeps): Promise<{ updatedSpaces: number }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const siteSpaces = await em.find(SiteSpace, { siteId: site.id }, { fields: ["spaceId"], orderBy: { id: "asc" } });
  const spaceIds = [...new Set(siteSpaces.map((siteSpace) => siteSpace.spaceId))];
  let updatedSpaces = 0;
  for (let start = 0; start < spaceIds.length; start += SPACES_PER_PREWARM) {
    const response = await deps.search.prewarmPublishedSearch({ spaceIds: spaceIds.slice(start, start + SPACES_PER_PREWARM) });
    updatedSpaces += response.updatedSpaces;
  }
  return { updatedSpaces };
}
