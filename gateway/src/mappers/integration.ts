import type { Installation } from "@imprint/proto/integration/v1/installations";
import type { IntegrationEvent, LogLine } from "@imprint/proto/integration/v1/integration_events";
import type { Integration } from "@imprint/proto/integration/v1/integrations";
import type { SiteScript } from "@imprint/proto/integration/v1/scripts";
import type { TargetInstallation } from "@imprint/proto/integration/v1/target_installations";
import { AppError } from "@imprint/runtime/core";
import type { RestOrganization } from "./organization.js";
import type { RestSite } from "./site.js";
import type { RestSpace } from "./space.js";
import type { PublicUrls } from "./urls.js";

/**
 * GitBook's integration objects from the integration service's messages. JSON-valued fields carry
 * GitBook's own shapes as text (the service validates them); an integration's secrets never reach
 * the gateway at all (the message holds their names only, and those are not shown either).
 */

export interface RestIntegration {
  object: "integration";
  name: string;
  version: number;
  title: string;
  description: string;
  summary?: string;
  previewImages: string[];
  target: string;
  verified: false;
  visibility: string;
  scopes: string[];
  categories: string[];
  blocks: unknown[];
  contentSources: unknown[];
  configurations: Record<string, unknown>;
  externalLinks: unknown[];
  owner: RestOrganization;
  permissions: { admin: boolean; install: boolean };
  urls: { location: string; icon?: string; app: string; assets: string; publicEndpoint: string; publicContentEndpoint: string };
  contentSecurityPolicy?: string;
}

export interface RestIntegrationInstallation {
  id: string;
  status: string;
  space_selection: string;
  site_selection: string;
  spaces: number;
  configuration: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  urls: { location: string; app: string; publicEndpoint: string; publicContentEndpoint: string };
  externalIds: string[];
  target: { organization: string };
}

interface RestContentInstallationBase {
  integration: string;
  installation: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
  urls: { location: string; publicEndpoint: string; publicContentEndpoint: string };
}

/** `space` is the space's id, or (with `extended=true`) the space itself when the caller can read it. */
export interface RestIntegrationSpaceInstallation extends RestContentInstallationBase {
  space: string | RestSpace;
}

/** `site` is the site's id, or (with `extended=true`) the site itself when the caller can read it. */
export interface RestIntegrationSiteInstallation extends RestContentInstallationBase {
  site: string | RestSite;
}

export interface RestIntegrationEvent {
  id: string;
  integrationId: string;
  installationId?: string;
  createdAt: string;
  payload: unknown;
  status: string;
}

const segment = encodeURIComponent;

/** API URL of an integration (its `Location` and `urls.location`). */
export function integrationLocation(urls: PublicUrls, name: string): string {
  return `${urls.api}/v1/integrations/${segment(name)}`;
}

/** API URL of an organization installation. */
export function installationLocation(urls: PublicUrls, name: string, installationId: string): string {
  return `${integrationLocation(urls, name)}/installations/${segment(installationId)}`;
}

/** API URL of a space or site installation (`kind` is the path segment: spaces or sites). */
export function targetInstallationLocation(urls: PublicUrls, name: string, installationId: string, kind: "spaces" | "sites", targetId: string): string {
  return `${installationLocation(urls, name, installationId)}/${kind}/${segment(targetId)}`;
}

/** The installation's public HTTP endpoint (its script's `fetch` handler), served by this gateway without a token. */
export function installationPublicEndpoint(urls: PublicUrls, name: string, installationId: string): string {
  return `${installationLocation(urls, name, installationId)}/public`;
}

/** Where an integration's published images are served (an asset's URL is this plus its id). */
export function integrationAssetsUrl(urls: PublicUrls, name: string): string {
  return `${integrationLocation(urls, name)}/assets/`;
}

/** JSON text from the service: "" is `empty`; anything else must parse (the service wrote it). */
function parseJson<T>(text: string, empty: T, field: string): T {
  if (text === "") return empty;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new AppError("internal", `upstream answered ${field} that is not JSON`, { cause: error });
  }
}

const timestamp = (date: Date | undefined) => (date ?? new Date(0)).toISOString();

/** GitBook's Integration; `owner` is the owning organization as anyone may see it (identity's public fields). */
export function toRestIntegration(integration: Integration | undefined, owner: RestOrganization | undefined, urls: PublicUrls): RestIntegration {
  if (!integration) throw new AppError("internal", "upstream answered without an integration");
  if (!owner) throw new AppError("internal", `the owner organization of integration ${integration.name} was not found`);
  const i = integration;
  const assets = integrationAssetsUrl(urls, i.name);
  // Imprint has no integration-wide endpoint: a script's fetch handler is reached per installation.
  const publicEndpoint = `${integrationLocation(urls, i.name)}/public`;
  const rest: RestIntegration = {
    object: "integration",
    name: i.name,
    version: i.version,
    title: i.title,
    description: i.description,
    previewImages: i.previewAssetIds.map((id) => `${assets}${segment(id)}`),
    target: i.target,
    verified: false,
    visibility: i.visibility,
    scopes: i.scopes,
    categories: i.categories,
    blocks: parseJson(i.blocksJson, [], "blocks_json"),
    contentSources: parseJson(i.contentSourcesJson, [], "content_sources_json"),
    configurations: parseJson(i.configurationsJson, {}, "configurations_json"),
    externalLinks: parseJson(i.externalLinksJson, [], "external_links_json"),
    owner,
    permissions: { admin: i.canAdmin, install: i.canInstall },
    urls: {
      location: integrationLocation(urls, i.name),
      app: `${urls.app}/integrations/${segment(i.name)}`,
      assets,
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
  };
  if (i.summary) rest.summary = i.summary;
  if (i.iconAssetId) rest.urls.icon = `${assets}${segment(i.iconAssetId)}`;
  if (i.contentSecurityPolicy) rest.contentSecurityPolicy = i.contentSecurityPolicy;
  return rest;
}

/** GitBook's IntegrationInstallation (an installation on an organization). */
export function toRestInstallation(installation: Installation | undefined, urls: PublicUrls): RestIntegrationInstallation {
  if (!installation) throw new AppError("internal", "upstream answered without an installation");
  const i = installation;
  const publicEndpoint = installationPublicEndpoint(urls, i.integrationName, i.id);
  return {
    id: i.id,
    status: i.status,
    space_selection: i.spaceSelection,
    site_selection: i.siteSelection,
    spaces: i.spaceCount,
    configuration: parseJson(i.configurationJson, {}, "configuration_json"),
    createdAt: timestamp(i.createdAt),
    updatedAt: timestamp(i.updatedAt),
    urls: {
      location: installationLocation(urls, i.integrationName, i.id),
      app: `${urls.app}/o/${segment(i.organizationId)}/integrations/${segment(i.integrationName)}`,
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
    externalIds: i.externalIds,
    target: { organization: i.organizationId },
  };
}

function contentInstallationBase(installation: TargetInstallation, kind: "spaces" | "sites", urls: PublicUrls): RestContentInstallationBase {
  const i = installation;
  const publicEndpoint = installationPublicEndpoint(urls, i.integrationName, i.installationId);
  return {
    integration: i.integrationName,
    installation: i.installationId,
    status: i.status,
    configuration: parseJson(i.configurationJson, {}, "configuration_json"),
    externalIds: i.externalIds,
    urls: {
      location: targetInstallationLocation(urls, i.integrationName, i.installationId, kind, i.targetId),
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
  };
}

/** GitBook's IntegrationSpaceInstallation; `space` is the expanded space when given, else its id. */
export function toRestSpaceInstallation(
  installation: TargetInstallation | undefined,
  space: RestSpace | undefined,
  urls: PublicUrls,
): RestIntegrationSpaceInstallation {
  if (!installation) throw new AppError("internal", "upstream answered without a space installation");
  return { ...contentInstallationBase(installation, "spaces", urls), space: space ?? installation.targetId };
}

/** GitBook's IntegrationSiteInstallation; `site` is the expanded site when given, else its id. */
export function toRestSiteInstallation(
  installation: TargetInstallation | undefined,
  site: RestSite | undefined,
  urls: PublicUrls,
): RestIntegrationSiteInstallation {
  if (!installation) throw new AppError("internal", "upstream answered without a site installation");
  return { ...contentInstallationBase(installation, "sites", urls), site: site ?? installation.targetId };
}

/** GitBook's SiteIntegrationScript: a script a site's pages load. */
export interface RestSiteIntegrationScript {
  script: string;
  contentSecurityPolicy?: string;
  cookies: boolean;
}

/** A script as the reader injects it: its URL is the one integration names (and the reader loads). */
export function toRestSiteIntegrationScript(script: SiteScript): RestSiteIntegrationScript {
  return { script: script.url, ...(script.contentSecurityPolicy ? { contentSecurityPolicy: script.contentSecurityPolicy } : {}), cookies: script.cookies };
}

/** GitBook's IntegrationEvent: `payload` is the GitBook Event that was sent. */
export function toRestIntegrationEvent(event: IntegrationEvent | undefined): RestIntegrationEvent {
  if (!event) throw new AppError("internal", "upstream answered without an integration event");
  const rest: RestIntegrationEvent = {
    id: event.id,
    integrationId: event.integrationId,
    createdAt: timestamp(event.createdAt),
    payload: parseJson<unknown>(event.payloadJson, {}, "payload_json"),
    status: event.status,
  };
  if (event.installationId) rest.installationId = event.installationId;
  return rest;
}

/** GitBook's IntegrationEventLog. */
export function toRestEventLog(line: LogLine): { message: string; timestamp: string; level: string } {
  return { message: line.message, timestamp: timestamp(line.timestamp), level: line.level };
}
