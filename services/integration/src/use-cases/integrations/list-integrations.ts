import type { EntityManager } from "@mikro-orm/postgresql";
import { pageOfSorted, readPageRequest, requireCaller, type CallerInput, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { unfurlDomains } from "../../domain/declaration.js";
import { Integration } from "../../domain/integration.js";
import { callerMessage, type Standing, organizationStanding } from "../shared/access.js";

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

/**
 * The integrations the caller can see, by name: public ones, and every one owned by an
 * organization it belongs to (unlisted and private ones are not listed to others). A self-hosted
 * installation has tens of integrations, so filters run over the visible set in memory.
 */
export async function listIntegrations(
  em: EntityManager,
  input: { caller: CallerInput | undefined; page: PageRequestLike | undefined; filters: IntegrationFilters },
  deps: UseCaseDeps,
): Promise<Page<ListedIntegration>> {
  const caller = requireCaller(input.caller);
  const cursor = readPageRequest(input.page, "name:asc", ["string"]);
  const { organizations } = await deps.identity.organizations.listOrganizations({ caller: callerMessage(caller), page: { pageToken: "", pageSize: 1000 } });
  const memberOf = organizations.map((organization) => organization.id);
  const visible = await em.find(
    Integration,
    { $or: [{ visibility: "public" }, { ownerOrganizationId: { $in: memberOf } }] },
    { orderBy: { name: "asc" }, exclude: ["script", "secretsCiphertext"] as never },
  );
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
