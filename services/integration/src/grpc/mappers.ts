import { type Installation as InstallationMessage } from "@imprint/proto/integration/v1/installations";
import { type IntegrationEvent as IntegrationEventMessage } from "@imprint/proto/integration/v1/integration_events";
import { type Integration as IntegrationMessage } from "@imprint/proto/integration/v1/integrations";
import { TargetKind as TargetKindMessage, type TargetInstallation as TargetInstallationMessage } from "@imprint/proto/integration/v1/target_installations";
import type { Installation, TargetInstallation, TargetKind } from "../domain/installation.js";
import type { IntegrationEventRecord } from "../domain/integration-event.js";
import type { Integration } from "../domain/integration.js";
import type { Standing } from "../use-cases/shared/access.js";

export function integrationToProto(integration: Integration, owner: Standing): IntegrationMessage {
  return {
    id: integration.id,
    name: integration.name,
    version: integration.version,
    runtime: integration.runtime,
    title: integration.title,
    description: integration.description,
    summary: integration.summary ?? "",
    visibility: integration.visibility,
    target: integration.target,
    scopes: integration.scopes,
    categories: integration.categories,
    blocksJson: JSON.stringify(integration.blocks),
    contentSourcesJson: JSON.stringify(integration.contentSources),
    externalLinksJson: JSON.stringify(integration.externalLinks),
    configurationsJson: JSON.stringify(integration.configurations),
    contentSecurityPolicy: integration.contentSecurityPolicy ?? "",
    ownerOrganizationId: integration.ownerOrganizationId,
    iconAssetId: integration.iconAssetId ?? "",
    previewAssetIds: integration.previewAssetIds,
    secretNames: integration.secretNames,
    // The tunnel is the developer's business: only the owner's admins see it.
    devTunnelUrl: owner.admin ? (integration.devTunnelUrl ?? "") : "",
    devAll: owner.admin && integration.devAll,
    canAdmin: owner.admin,
    canInstall: integration.visibility !== "private" || owner.admin,
    createdAt: integration.createdAt,
    updatedAt: integration.updatedAt,
  };
}

export function installationToProto(integration: Integration, installation: Installation, spaceCount: number): InstallationMessage {
  return {
    id: installation.id,
    integrationName: integration.name,
    organizationId: installation.organizationId,
    status: installation.status,
    spaceSelection: installation.spaceSelection,
    siteSelection: installation.siteSelection,
    spaceCount,
    configurationJson: JSON.stringify(installation.configuration),
    externalIds: installation.externalIds,
    createdAt: installation.createdAt,
    updatedAt: installation.updatedAt,
  };
}

export function targetKindToProto(kind: TargetKind): TargetKindMessage {
  return kind === "space" ? TargetKindMessage.TARGET_KIND_SPACE : TargetKindMessage.TARGET_KIND_SITE;
}

/** The domain's kind from the wire; undefined for an unset or unknown value. */
export function targetKindFromProto(kind: TargetKindMessage): TargetKind | undefined {
  if (kind === TargetKindMessage.TARGET_KIND_SPACE) return "space";
  if (kind === TargetKindMessage.TARGET_KIND_SITE) return "site";
  return undefined;
}

export function targetInstallationToProto(integration: Integration, target: TargetInstallation): TargetInstallationMessage {
  return {
    kind: targetKindToProto(target.kind as TargetKind),
    targetId: target.targetId,
    installationId: target.installationId,
    integrationName: integration.name,
    status: target.status,
    configurationJson: JSON.stringify(target.configuration),
    externalIds: target.externalIds,
    createdAt: target.createdAt,
    updatedAt: target.updatedAt,
    organizationId: target.organizationId,
  };
}

export function integrationEventToProto(event: IntegrationEventRecord): IntegrationEventMessage {
  return {
    id: event.id,
    integrationId: event.integrationId,
    installationId: event.installationId ?? "",
    createdAt: event.createdAt,
    payloadJson: JSON.stringify(event.payload),
    status: event.state,
  };
}
