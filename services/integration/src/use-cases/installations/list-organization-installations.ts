import type { EntityManager } from "@mikro-orm/postgresql";
import { compareStringKeys, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation, type TargetKind } from "../../domain/installation.js";
import { Integration } from "../../domain/integration.js";
import { type CallerInput, organizationStanding, requireOrganizationRole, type Standing } from "../shared/access.js";
import { spaceCounts } from "../shared/installations.js";
import { requireTargetVisible } from "../shared/targets.js";

/** Something installed in an organization: on the organization itself (`target` null), or on one of its spaces or sites. */
export interface OrganizationInstallationView {
  integration: Integration;
  /** The caller's standing in the integration's owner organization. */
  owner: Standing;
  installation: Installation;
  spaceCount: number;
  target: { kind: TargetKind; id: string } | null;
  status: string;
}

export interface OrganizationInstallationsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
  /** Integrations whose name or title contains this (case-insensitive); "": all. */
  search: string;
  /** Only this integration's; "": all. */
  name: string;
  /** undefined: the organization's installations; else its space or site installations. */
  targetKind: TargetKind | undefined;
  /** With a kind: only those on this space or site (the caller must see it); "": all. */
  targetId: string;
}

/**
 * What is installed in an organization, for its members, by integration name (then space or site
 * id): its installations, or its space or site installations, each with its integration. An
 * organization has at most one installation per integration and tens of integrations, so the
 * list is sorted and paged in memory.
 */
export async function listOrganizationInstallations(
  em: EntityManager,
  input: OrganizationInstallationsInput,
  deps: UseCaseDeps,
): Promise<Page<OrganizationInstallationView>> {
  const { caller } = await requireOrganizationRole(deps, input.caller, input.organizationId, "member", "list the organization's installations");
  const cursor = readPageRequest(input.page, `organization-installations:${input.targetKind ?? "organization"}`, ["string", "string"]);
  if (input.targetKind && input.targetId) await requireTargetVisible(deps, caller, input.organizationId, input.targetKind, input.targetId);

  const installations = await em.find(Installation, { organizationId: input.organizationId });
  const targets = input.targetKind
    ? await em.find(TargetInstallation, {
        organizationId: input.organizationId,
        kind: input.targetKind,
        ...(input.targetId ? { targetId: input.targetId } : {}),
      })
    : [];
  const integrations = await em.find(
    Integration,
    { id: { $in: [...new Set(installations.map((installation) => installation.integrationId))] } },
    { exclude: ["script", "secretsCiphertext"] as never },
  );
  const search = input.search.toLowerCase();
  const byId = new Map(
    integrations
      .filter((integration) => !input.name || integration.name === input.name)
      .filter((integration) => !search || integration.name.toLowerCase().includes(search) || integration.title.toLowerCase().includes(search))
      .map((integration) => [integration.id, integration]),
  );
  const installationsById = new Map(installations.map((installation) => [installation.id, installation]));
  const entries = (
    input.targetKind
      ? targets.map((target) => ({
          installation: installationsById.get(target.installationId),
          target: { kind: input.targetKind!, id: target.targetId },
          status: target.status,
        }))
      : installations.map((installation) => ({ installation, target: null, status: installation.status }))
  ).flatMap(({ installation, target, status }) => {
    const integration = installation && byId.get(installation.integrationId);
    return integration && installation ? [{ integration, installation, target, status }] : [];
  });
  const keyOf = (entry: (typeof entries)[number]) => [entry.integration.name, entry.target?.id ?? ""];
  const page = pageOfSorted(
    entries.sort((a, b) => compareStringKeys(keyOf(a), keyOf(b))),
    keyOf,
    cursor,
  );

  const counts = await spaceCounts(em, [...new Set(page.items.map((entry) => entry.installation))]);
  const standings = new Map<string, Standing>();
  for (const ownerId of new Set(page.items.map((entry) => entry.integration.ownerOrganizationId))) {
    standings.set(ownerId, await organizationStanding(deps, caller, ownerId));
  }
  return {
    ...page,
    items: page.items.map((entry) => ({
      ...entry,
      owner: standings.get(entry.integration.ownerOrganizationId) ?? { member: false, admin: false },
      spaceCount: counts.get(entry.installation.id) ?? 0,
    })),
  };
}
