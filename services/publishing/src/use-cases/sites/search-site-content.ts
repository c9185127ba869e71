import type { EntityManager } from "@mikro-orm/postgresql";
import type { PageRequest } from "@imprint/proto/common/v1";
import type { SearchOrganizationContentResponse } from "@imprint/proto/content/v1/search";
import { AppError } from "@imprint/runtime";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { callerMessage, type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite, levelDefaults } from "../shared/sites.js";

/** A specific-mode search names at most this many site-spaces. */
export const MAX_SEARCHED_SITE_SPACES = 1000;

/** GitBook's SiteSearchScope, its deprecated `mode` forms already mapped by the gateway. */
export type SiteSearchScope =
  | { mode: "default"; currentSiteSpaceId: string; restrictTo: "currentSiteSpace" | "otherSiteSpaces" | null }
  | { mode: "specific"; siteSpaceIds: readonly string[] }
  | { mode: "all" };

export interface SearchSiteContentInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  query: string;
  scope: SiteSearchScope;
  page: PageRequest | undefined;
}

/** What a scope needs of a site-space. */
type ScopedSiteSpace = Pick<SiteSpace, "id" | "spaceId" | "draft">;

/**
 * Searches the spaces a site publishes, for anyone who can see the site (its level, docs/permissions.md): the site-spaces the
 * scope names are resolved here (publishing owns them), their spaces searched by content as the
 * caller, so only spaces the caller can read take part (a site shows a member nothing more than
 * the spaces themselves would). Spaces come back with their best pages, best space first.
 */
export async function searchSiteContent(em: EntityManager, input: SearchSiteContentInput, deps: UseCaseDeps): Promise<SearchOrganizationContentResponse> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const siteSpaces = await em.find(
    SiteSpace,
    { siteId: site.id, spaceDeleted: false },
    { fields: ["id", "spaceId", "draft"], orderBy: { position: "asc", id: "asc" } },
  );
  const searched = await siteSpacesInScope(em, site.id, siteSpaces, input.scope);
  return deps.search.searchOrganizationContent({
    caller: callerMessage(access.caller),
    organizationId: site.organizationId,
    query: input.query,
    page: input.page,
    restrictTo: { spaceIds: [...new Set(searched.map((siteSpace) => siteSpace.spaceId))] },
  });
}

/**
 * The site-spaces a scope covers. Named ones must be the site's (else the field is refused) and
 * take part even as drafts; the defaults and "all" take live site-spaces only.
 */
async function siteSpacesInScope(em: EntityManager, siteId: string, siteSpaces: ScopedSiteSpace[], scope: SiteSearchScope): Promise<ScopedSiteSpace[]> {
  const byId = new Map(siteSpaces.map((siteSpace) => [siteSpace.id, siteSpace]));
  const named = (id: string, field: string): ScopedSiteSpace => {
    const found = byId.get(id);
    if (!found) throw AppError.invalidArgument(`${field}: no site space ${id} in this site`);
    return found;
  };
  switch (scope.mode) {
    case "all":
      return siteSpaces.filter((siteSpace) => !siteSpace.draft);
    case "specific":
      if (scope.siteSpaceIds.length < 1) throw AppError.invalidArgument("scope.siteSpaceIds: must name at least 1 site space");
      if (scope.siteSpaceIds.length > MAX_SEARCHED_SITE_SPACES) {
        throw AppError.invalidArgument(`scope.siteSpaceIds: must name at most ${MAX_SEARCHED_SITE_SPACES} site spaces`);
      }
      return scope.siteSpaceIds.map((id) => named(id, "scope.siteSpaceIds"));
    case "default": {
      const current = scope.currentSiteSpaceId === "" ? null : named(scope.currentSiteSpaceId, "scope.currentSiteSpace");
      if (scope.restrictTo && !current) throw AppError.invalidArgument("scope.currentSiteSpace: required with restrictTo");
      if (scope.restrictTo === "currentSiteSpace") return [current!];
      const defaults = new Set((await levelDefaults(em, siteId)).values());
      const inDefault = siteSpaces.filter((siteSpace) => defaults.has(siteSpace.id) && !siteSpace.draft && siteSpace.id !== current?.id);
      return scope.restrictTo === "otherSiteSpaces" || !current ? inDefault : [current, ...inDefault];
    }
  }
}
