import type { Caller } from "@imprint/proto/common/v1";
import { type Integration } from "@imprint/proto/integration/v1/integrations";
import { TargetKind, type TargetInstallation } from "@imprint/proto/integration/v1/target_installations";
import { AppError, isId } from "@imprint/runtime/core";
import { toRestIntegration, type RestIntegration } from "../mappers/integration.js";
import { toRestOrganization, type RestOrganization } from "../mappers/organization.js";
import { toRestSite, type RestSite } from "../mappers/site.js";
import { toRestSpace, type RestSpace } from "../mappers/space.js";
import type { PublicUrls } from "../mappers/urls.js";
import type { RouteDeps } from "./deps.js";

type Upstreams = RouteDeps["upstreams"];

/**
 * Integrations as GitBook shows them, each with its owner organization: one identity call for the
 * distinct owners of the whole answer (the caller is often no member of a public integration's
 * owner, so these are the organizations' public fields, with no permissions).
 */
export async function restIntegrations(upstreams: Upstreams, urls: PublicUrls, integrations: readonly Integration[]): Promise<RestIntegration[]> {
  if (integrations.length === 0) return [];
  const owners = await readOwners(
    upstreams,
    urls,
    integrations.map((integration) => integration.ownerOrganizationId),
  );
  return integrations.map((integration) => toRestIntegration(integration, owners.get(integration.ownerOrganizationId), urls));
}

/** Organizations (integrations' owners) as GitBook shows them, by id; a write reads its owner before it is saved. */
export async function readOwners(upstreams: Upstreams, urls: PublicUrls, organizationIds: readonly string[]): Promise<ReadonlyMap<string, RestOrganization>> {
  const ids = [...new Set(organizationIds.filter((id) => isId(id)))];
  if (ids.length === 0) return new Map();
  const { organizations } = await upstreams.identity.organizations.batchGetOrganizations({ organizationIds: ids });
  return new Map(organizations.map((organization) => [organization.id, toRestOrganization(organization, urls)]));
}

/**
 * One integration as GitBook shows it. A write passes the owners it read before it was saved
 * (`knownOwners`): then an owner it lacks is asked for on a best effort only (left out, as for an
 * owner that no longer exists), never failing a write already applied.
 */
export async function restIntegration(
  upstreams: Upstreams,
  urls: PublicUrls,
  integration: Integration | undefined,
  knownOwners?: ReadonlyMap<string, RestOrganization>,
): Promise<RestIntegration> {
  if (!integration) throw new AppError("internal", "upstream answered without an integration");
  if (!knownOwners) return (await restIntegrations(upstreams, urls, [integration]))[0]!;
  const ownerId = integration.ownerOrganizationId;
  const owners = knownOwners.has(ownerId) ? knownOwners : await readOwners(upstreams, urls, [ownerId]).catch(() => knownOwners);
  return toRestIntegration(integration, owners.get(ownerId), urls);
}

/** `not_found` from an upstream read as "nothing the caller can see". */
async function orNothing<T>(call: Promise<T>, nothing: T): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return nothing;
    throw error;
  }
}

/**
 * The spaces or sites of `installations` (`extended=true`), by id: those the caller can read.
 * Content and publishing read them per organization: one batch call per organization for the whole
 * page, never one per item. An organization the caller cannot read leaves its items' targets as ids.
 */
export async function expandTargets(
  upstreams: Upstreams,
  urls: PublicUrls,
  input: { caller: Caller; kind: TargetKind; installations: readonly TargetInstallation[] },
): Promise<Map<string, RestSpace | RestSite>> {
  const expanded = new Map<string, RestSpace | RestSite>();
  if (input.installations.length === 0) return expanded;
  const idsByOrganization = new Map<string, string[]>();
  for (const item of input.installations) {
    const organizationId = item.organizationId;
    const ids = idsByOrganization.get(organizationId) ?? [];
    if (!ids.includes(item.targetId)) ids.push(item.targetId);
    idsByOrganization.set(organizationId, ids);
  }
  await Promise.all(
    [...idsByOrganization].map(async ([organizationId, ids]) => {
      if (input.kind === TargetKind.TARGET_KIND_SPACE) {
        const { spaces } = await orNothing(upstreams.content.spaces.batchGetSpaces({ caller: input.caller, organizationId, spaceIds: ids }), { spaces: [] });
        for (const space of spaces) expanded.set(space.id, toRestSpace(space, urls));
      } else {
        const { sites } = await orNothing(upstreams.publishing.sites.batchGetSites({ caller: input.caller, organizationId, siteIds: ids }), { sites: [] });
        for (const site of sites) expanded.set(site.id, toRestSite(site, urls));
      }
    }),
  );
  return expanded;
}
