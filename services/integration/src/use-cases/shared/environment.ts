import type { UseCaseDeps } from "../../deps.js";
import type { Installation, TargetInstallation } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { integrationEnvironment } from "../../domain/platform/events.js";
import type { InstallationTokens } from "../../delivery/installation-tokens.js";

/** GitBook's Integration object as a script sees it in its environment. */
export function integrationObject(integration: Integration, publicUrl: string): Record<string, unknown> {
  const location = `${publicUrl}/v1/integrations/${encodeURIComponent(integration.name)}`;
  return {
    object: "integration",
    name: integration.name,
    version: integration.version,
    title: integration.title,
    description: integration.description,
    ...(integration.summary !== null && integration.summary !== undefined ? { summary: integration.summary } : {}),
    previewImages: integration.previewAssetIds.map((id) => `${location}/assets/${id}`),
    target: integration.target,
    verified: false,
    visibility: integration.visibility,
    scopes: integration.scopes,
    categories: integration.categories,
    blocks: integration.blocks,
    contentSources: integration.contentSources,
    configurations: integration.configurations,
    externalLinks: integration.externalLinks,
    owner: { object: "organization", id: integration.ownerOrganizationId },
    permissions: { admin: false, install: false },
    urls: { location, app: location, assets: `${location}/assets/`, publicEndpoint: `${location}/public`, publicContentEndpoint: `${location}/public` },
    ...(integration.contentSecurityPolicy ? { contentSecurityPolicy: integration.contentSecurityPolicy } : {}),
  };
}

function installationUrls(integration: Integration, installationId: string, publicUrl: string) {
  const location = `${publicUrl}/v1/integrations/${encodeURIComponent(integration.name)}/installations/${installationId}`;
  return { location, app: location, publicEndpoint: `${location}/public`, publicContentEndpoint: `${location}/public` };
}

/** GitBook's IntegrationInstallation object. */
export function installationObject(integration: Integration, installation: Installation, spaceCount: number, publicUrl: string): Record<string, unknown> {
  return {
    id: installation.id,
    status: installation.status,
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection,
    spaces: spaceCount,
    configuration: installation.configuration,
    createdAt: installation.createdAt.toISOString(),
    updatedAt: installation.updatedAt.toISOString(),
    urls: installationUrls(integration, installation.id, publicUrl),
    externalIds: installation.externalIds,
    target: { organization: installation.organizationId },
  };
}

/** GitBook's IntegrationEnvironmentSpaceInstallation / SiteInstallation object. */
export function targetInstallationObject(integration: Integration, target: TargetInstallation, publicUrl: string): Record<string, unknown> {
  const urls = installationUrls(integration, target.installationId, publicUrl);
  return {
    integration: integration.name,
    installation: target.installationId,
    status: target.status,
    configuration: target.configuration,
    externalIds: target.externalIds,
    urls: {
      location: `${urls.location}/${target.kind}s/${target.targetId}`,
      publicEndpoint: urls.publicEndpoint,
      publicContentEndpoint: urls.publicContentEndpoint,
    },
    [target.kind]: target.targetId,
  };
}

/** Everything a script call needs to build its environment. */
export interface EnvironmentInput {
  integration: Integration;
  installation: Installation | null;
  target: TargetInstallation | null;
  spaceCount: number;
}

/** The environment of a script call: objects, secrets, signing secrets and API tokens. */
export async function buildEnvironment(
  deps: Pick<UseCaseDeps, "secrets" | "settings">,
  tokens: InstallationTokens,
  input: EnvironmentInput,
): Promise<Record<string, unknown>> {
  const { integration, installation, target } = input;
  const publicUrl = deps.settings.publicUrl;
  const integrationToken = await tokens.tokenFor({ id: integration.id, organizationId: integration.ownerOrganizationId, integration });
  const installationToken = installation ? await tokens.tokenFor({ id: installation.id, organizationId: installation.organizationId, integration }) : null;
  return integrationEnvironment({
    apiEndpoint: publicUrl,
    integration: integrationObject(integration, publicUrl),
    ...(installation ? { installation: installationObject(integration, installation, input.spaceCount, publicUrl) } : {}),
    ...(target?.kind === "space" ? { spaceInstallation: targetInstallationObject(integration, target, publicUrl) } : {}),
    ...(target?.kind === "site" ? { siteInstallation: targetInstallationObject(integration, target, publicUrl) } : {}),
    secrets: deps.secrets.open(integration.id, integration.secretsCiphertext ? Buffer.from(integration.secretsCiphertext) : null),
    signingSecrets: {
      integration: integration.signingSecret,
      ...(installation ? { installation: installation.signingSecret } : {}),
      ...(target?.kind === "space" ? { spaceInstallation: target.signingSecret } : {}),
      ...(target?.kind === "site" ? { siteInstallation: target.signingSecret } : {}),
    },
    apiTokens: { integration: integrationToken.token, ...(installationToken ? { installation: installationToken.token } : {}) },
    authToken: (installationToken ?? integrationToken).token,
  });
}
