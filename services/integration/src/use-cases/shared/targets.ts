import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import type { Installation, InstallationStatus, TargetInstallation, TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import {
  siteInstallationDeletedEvent,
  siteInstallationSetupEvent,
  spaceInstallationDeletedEvent,
  spaceInstallationSetupEvent,
} from "../../domain/platform/events.js";
import { callerMessage } from "./access.js";
import { checkConfiguration, missesRequired } from "./configuration.js";
import { recordDelivery } from "./deliveries.js";

/** The kind from the wire's enum value. */
export function targetKindOf(value: "space" | "site" | undefined): TargetKind {
  if (value !== "space" && value !== "site") throw AppError.invalidArgument("kind: must be space or site");
  return value;
}

/** Checks that the space or site exists in the installation's organization and the caller can see it; not_found otherwise. */
export async function requireTargetInOrganization(
  deps: Pick<UseCaseDeps, "spaces" | "sites">,
  caller: CallerInput,
  installation: Installation,
  kind: TargetKind,
  targetId: string,
): Promise<void> {
  await requireTargetVisible(deps, caller, installation.organizationId, kind, targetId);
}

/** Checks that the space or site exists in the organization and the caller can see it; not_found otherwise. */
export async function requireTargetVisible(
  deps: Pick<UseCaseDeps, "spaces" | "sites">,
  caller: CallerInput,
  organizationId: string,
  kind: TargetKind,
  targetId: string,
): Promise<void> {
  if (kind === "site") return requireSiteVisible(deps, caller, organizationId, targetId);
  if (!isId(targetId)) throw AppError.notFound("Space");
  const { space } = await deps.spaces.getSpace({ caller: callerMessage(caller), spaceId: targetId, shareKey: "" });
  if (!space || space.organizationId !== organizationId) throw AppError.notFound("Space");
}

/** Checks that the caller sees the site in the organization; not_found otherwise (another organization's site included). */
export async function requireSiteVisible(deps: Pick<UseCaseDeps, "sites">, caller: CallerInput, organizationId: string, siteId: string): Promise<void> {
  if (!isId(organizationId) || !isId(siteId)) throw AppError.notFound("Site");
  const { site } = await deps.sites.getSite({ caller: callerMessage(caller), organizationId, siteId });
  if (!site) throw AppError.notFound("Site");
}

/** A target's configuration, checked (the installation stays `pending` while a required property is unset). */
export function targetConfiguration(integration: Integration, kind: TargetKind, configuration: Record<string, unknown>): Record<string, unknown> {
  return checkConfiguration(integration, kind, configuration);
}

export function targetStatus(integration: Integration, kind: TargetKind, configuration: Record<string, unknown>): "active" | "pending" {
  return missesRequired(integration, kind, configuration) ? "pending" : "active";
}

/** Records `space_installation_setup` / `site_installation_setup` for the integration. */
export function recordTargetSetup(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  integration: Integration,
  target: TargetInstallation,
  previous: { status: string; configuration: Record<string, unknown> } | undefined,
  sourceKey: string,
): void {
  const base = {
    installationId: target.installationId,
    status: target.status as InstallationStatus,
    ...(previous ? { previous: { status: previous.status as InstallationStatus, configuration: previous.configuration } } : {}),
  };
  recordDelivery(em, deps, {
    integrationId: integration.id,
    installationId: target.installationId,
    organizationId: target.organizationId,
    targetInstallationId: target.id,
    type: `${target.kind}_installation_setup`,
    payload: (eventId) =>
      target.kind === "space"
        ? spaceInstallationSetupEvent({ eventId, ...base, spaceId: target.targetId })
        : siteInstallationSetupEvent({ eventId, ...base, siteId: target.targetId }),
    sourceKey,
  });
}

/** Records `space_installation_deleted` / `site_installation_deleted` for the integration. */
export function recordTargetDeleted(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  integrationId: string,
  target: TargetInstallation,
  sourceKey: string,
): void {
  const base = { installationId: target.installationId, previous: { configuration: target.configuration } };
  recordDelivery(em, deps, {
    integrationId,
    installationId: target.installationId,
    organizationId: target.organizationId,
    targetInstallationId: null,
    type: `${target.kind}_installation_deleted`,
    payload: (eventId) =>
      target.kind === "space"
        ? spaceInstallationDeletedEvent({ eventId, ...base, spaceId: target.targetId })
        : siteInstallationDeletedEvent({ eventId, ...base, siteId: target.targetId }),
    sourceKey,
  });
}
