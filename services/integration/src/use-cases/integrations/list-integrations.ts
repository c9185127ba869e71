import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageOfSorted, readPageRequest, requireCaller, type CallerInput, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { unfurlDomains } from "../../domain/declaration.js";
import { TargetInstallation } from "../../domain/installation.js";
import { Integration } from "../../domain/integration.js";
import { callerMessage, type Standing, organizationStanding, requireOrganizationRole } from "../shared/access.js";
import { requireSiteVisible } from "../shared/targets.js";

export interface IntegrationFilters {
  search: string;
  category: string;
  blockDomain: string;
  blocks: boolean | undefined;
  contentSources: boolean | undefined;
  owner: string;
  scope: string;
  target: string;
}

function matches(integration: Integration, filters: IntegrationFilters): boolean {
  const search = filters.search.toLowerCase();
  if (search && !integration.name.toLowerCase().includes(search) && !integration.title.toLowerCase().includes(search)) return false;
  if (filters.category && !integration.categories.includes(filters.category)) return false;
  if (filters.blockDomain && !unfurlDomains(integration.blocks).includes(filters.blockDomain.toLowerCase())) return false;
  if (filters.blocks !== undefined && integration.blocks.length > 0 !== filters.blocks) return false;
  if (filters.contentSources !== undefined && integration.contentSources.length > 0 !== filters.contentSources) return false;
  if (filters.owner && integration.ownerOrganizationId !== filters.owner) return false;
  if (filters.scope && !integration.hasScope(filters.scope)) return false;
  // GitBook's `target` filter: integrations installable there (`all` ones are installable everywhere).
  if (filters.target && filters.target !== "all" && integration.target !== filters.target && integration.target !== "all") return false;
  if (filters.target === "all" && integration.target !== "all") return false;
  return true;
}

export interface ListedIntegration {
  integration: Integration;
  owner: Standing;
}

/** Whose integrations are listed: the caller's view, one organization's, or those installed on one of its sites. */
export interface IntegrationScope {
  /** The integrations this organization can use (public ones and its own); "": the caller's. */
  organizationId: string;
  /** Only those installed on this site of `organizationId`, whatever their visibility; "": any. */
  siteId: string;
}

/** The query of the integrations a scope holds, after checking the caller may list them. */
async function scopedIntegrations(deps: UseCaseDeps, em: EntityManager, caller: CallerInput, memberOf: string[], scope: IntegrationScope) {
  if (scope.siteId) {
    if (!scope.organizationId) throw AppError.invalidArgument("organization_id: required with site_id");
    await requireSiteVisible(deps, caller, scope.organizationId, scope.siteId);
    const installed = await em.find(
      TargetInstallation,
      { kind: "site", targetId: scope.siteId, organizationId: scope.organizationId },
      { fields: ["integrationId"] },
    );
    return { id: { $in: [...new Set(installed.map((target) => target.integrationId))] } };
  }
  if (scope.organizationId) {
    await requireOrganizationRole(deps, caller, scope.organizationId, "member", "list integrations");
    return { $or: [{ visibility: "public" }, { ownerOrganizationId: scope.organizationId }] };
  }
  return { $or: [{ visibility: "public" }, { ownerOrganizationId: { $in: memberOf } }] };
}

/**
 * The integrations the caller can see, by name: public ones, and every one owned by an
 * organization it belongs to (unlisted and private ones are not listed to others); or, with a
 * scope, those one organization can use, or those installed on one of its sites. A self-hosted
 * installation has tens of integrations, so filters run over the visible set in memory.
 */
export async function listIntegrations(
  em: EntityManager,
  input: { caller: CallerInput | undefined; page: PageRequestLike | undefined; filters: IntegrationFilters; scope?: IntegrationScope },
  deps: UseCaseDeps,
): Promise<Page<ListedIntegration>> {
  const caller = requireCaller(input.caller);
  const cursor = readPageRequest(input.page, "name:asc", ["string"]);
  const { organizations } = await deps.identity.organizations.listOrganizations({ caller: callerMessage(caller), page: { pageToken: "", pageSize: 1000 } });
  const memberOf = organizations.map((organization) => organization.id);
  const where = await scopedIntegrations(deps, em, caller, memberOf, input.scope ?? { organizationId: "", siteId: "" });
  const visible = await em.find(Integration, where, { orderBy: { name: "asc" }, exclude: ["script", "secretsCiphertext"] as never });
  const page = pageOfSorted(
    visible.filter((integration) => matches(integration, input.filters)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    (integration) => [integration.name],
    cursor,
  );
  const standings = new Map<string, Standing>();
  for (const ownerId of new Set(page.items.map((integration) => integration.ownerOrganizationId))) {
    standings.set(ownerId, memberOf.includes(ownerId) ? await organizationStanding(deps, caller, ownerId) : { member: false, admin: false });
  }
  return {
    ...page,
    items: page.items.map((integration) => ({ integration, owner: standings.get(integration.ownerOrganizationId) ?? { member: false, admin: false } })),
  };
}
