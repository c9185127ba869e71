import type { IntegrationServiceService } from "@imprint/proto/integration/v1";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getInstallation } from "../use-cases/installations/get-installation.js";
import { getIntegration } from "../use-cases/integrations/get-integration.js";
import { getIntegrationAsset } from "../use-cases/integrations/get-integration-asset.js";
import { getIntegrationEvent } from "../use-cases/integration-events/get-integration-event.js";
import { getPublishedScript } from "../use-cases/scripts/get-published-script.js";
import { getTargetInstallation } from "../use-cases/target-installations/get-target-installation.js";
import { handleInstallationRequest } from "../use-cases/scripts/handle-installation-request.js";
import { installIntegration } from "../use-cases/installations/install-integration.js";
import { installOnTarget } from "../use-cases/target-installations/install-on-target.js";
import { issueInstallationToken } from "../use-cases/installations/issue-installation-token.js";
import { listInstallations } from "../use-cases/installations/list-installations.js";
import { listIntegrationEvents } from "../use-cases/integration-events/list-integration-events.js";
import { listIntegrations } from "../use-cases/integrations/list-integrations.js";
import { listSiteScripts } from "../use-cases/scripts/list-site-scripts.js";
import { listTargetInstallations } from "../use-cases/target-installations/list-target-installations.js";
import { publishIntegration } from "../use-cases/integrations/publish-integration.js";
import { renderIntegrationUI } from "../use-cases/scripts/render-integration-ui.js";
import { reportSiteViews } from "../use-cases/scripts/report-site-views.js";
import { setDevelopmentMode } from "../use-cases/integrations/set-development-mode.js";
import { spaceCounts } from "../use-cases/shared/installations.js";
import { parseJsonObject } from "../use-cases/shared/json.js";
import { targetKindOf } from "../use-cases/shared/targets.js";
import { uninstall } from "../use-cases/installations/uninstall.js";
import { uninstallFromTarget } from "../use-cases/target-installations/uninstall-from-target.js";
import { unpublishIntegration } from "../use-cases/integrations/unpublish-integration.js";
import { updateInstallation } from "../use-cases/installations/update-installation.js";
import { updateTargetInstallation } from "../use-cases/target-installations/update-target-installation.js";
import { installationToProto, integrationEventToProto, integrationToProto, targetInstallationToProto, targetKindFromProto } from "./mappers.js";

export const INTEGRATION_SERVICE_NAME = "imprint.integration.v1.IntegrationService";

const headerPairs = (headers: Array<[string, string]>) => headers.map(([name, value]) => ({ name, value }));

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function integrationServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof IntegrationServiceService> {
  return {
    listIntegrations: async (request) => {
      const page = await listIntegrations(
        em(),
        {
          caller: request.caller,
          page: pageRequest(request.page),
          filters: {
            search: request.search,
            category: request.category,
            blockDomain: request.blockDomain,
            blocks: request.blocks,
            contentSources: request.contentSources,
            owner: request.owner,
            scope: request.scope,
            target: request.target,
          },
        },
        deps,
      );
      return { integrations: page.items.map(({ integration, owner }) => integrationToProto(integration, owner)), page: pageInfo(page) };
    },

    getIntegration: async (request) => {
      const { integration, owner } = await getIntegration(em(), { caller: request.caller, name: request.name }, deps);
      return { integration: integrationToProto(integration, owner) };
    },

    publishIntegration: async (request) => {
      const integration = await publishIntegration(
        em(),
        {
          caller: request.caller,
          name: request.name,
          organization: request.organization,
          runtime: request.runtime,
          title: request.title,
          description: request.description,
          summary: request.summary ?? null,
          visibility: request.visibility,
          target: request.target,
          scopes: request.scopes,
          categories: request.categories,
          blocksJson: request.blocksJson,
          contentSourcesJson: request.contentSourcesJson,
          externalLinksJson: request.externalLinksJson,
          configurationsJson: request.configurationsJson,
          script: request.script,
          secrets: request.secrets,
          contentSecurityPolicy: request.contentSecurityPolicy ?? null,
          icon: request.icon?.content ?? null,
          previewImages: request.previewsPresent ? request.previewImages.map((image) => image.content) : null,
        },
        deps,
      );
      return { integration: integrationToProto(integration, { member: true, admin: true }) };
    },

    unpublishIntegration: async (request) => ({ existed: await unpublishIntegration(em(), { caller: request.caller, name: request.name }, deps) }),

    listInstallations: async (request) => {
      const scoped = em();
      const { integration, page } = await listInstallations(scoped, { caller: request.caller, name: request.name, page: pageRequest(request.page), externalId: request.externalId }, deps);
      const counts = await spaceCounts(scoped, page.items);
      return { installations: page.items.map((installation) => installationToProto(integration, installation, counts.get(installation.id) ?? 0)), page: pageInfo(page) };
    },

    installIntegration: async (request) => {
      const { integration, installation, created } = await installIntegration(em(), { caller: request.caller, name: request.name, organizationId: request.organizationId }, deps);
      return { installation: installationToProto(integration, installation, 0), created };
    },

    getInstallation: async (request) => {
      const scoped = em();
      const { integration, installation } = await getInstallation(scoped, { caller: request.caller, name: request.name, installationId: request.installationId }, deps);
      const counts = await spaceCounts(scoped, [installation]);
      return { installation: installationToProto(integration, installation, counts.get(installation.id) ?? 0) };
    },

    updateInstallation: async (request) => {
      const scoped = em();
      const { integration, installation } = await updateInstallation(
        scoped,
        {
          caller: request.caller,
          name: request.name,
          installationId: request.installationId,
          configuration: request.configurationJson === undefined ? undefined : parseJsonObject("configuration", request.configurationJson),
          externalIds: request.externalIds?.values,
          spaceSelection: request.spaceSelection,
          siteSelection: request.siteSelection,
        },
        deps,
      );
      const counts = await spaceCounts(scoped, [installation]);
      return { installation: installationToProto(integration, installation, counts.get(installation.id) ?? 0) };
    },

    uninstall: async (request) => ({ existed: await uninstall(em(), { caller: request.caller, name: request.name, installationId: request.installationId }, deps) }),

    issueInstallationToken: async (request) => {
      const issued = await issueInstallationToken(em(), { caller: request.caller, name: request.name, installationId: request.installationId }, deps);
      return { token: issued.token, expiresAt: issued.expiresAt };
    },

    listTargetInstallations: async (request) => {
      const { integration, page } = await listTargetInstallations(
        em(),
        {
          caller: request.caller,
          name: request.name,
          kind: targetKindOf(targetKindFromProto(request.kind)),
          installationId: request.installationId,
          externalId: request.externalId,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { installations: page.items.map((target) => targetInstallationToProto(integration, target)), page: pageInfo(page) };
    },

    installOnTarget: async (request) => {
      const { integration, target, created } = await installOnTarget(
        em(),
        {
          caller: request.caller,
          name: request.name,
          installationId: request.installationId,
          kind: targetKindOf(targetKindFromProto(request.kind)),
          targetId: request.targetId,
          configuration: parseJsonObject("configuration", request.configurationJson),
          externalIds: request.externalIds,
        },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target), created };
    },

    getTargetInstallation: async (request) => {
      const { integration, target } = await getTargetInstallation(
        em(),
        { caller: request.caller, name: request.name, installationId: request.installationId, kind: targetKindOf(targetKindFromProto(request.kind)), targetId: request.targetId },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target) };
    },

    updateTargetInstallation: async (request) => {
      const { integration, target } = await updateTargetInstallation(
        em(),
        {
          caller: request.caller,
          name: request.name,
          installationId: request.installationId,
          kind: targetKindOf(targetKindFromProto(request.kind)),
          targetId: request.targetId,
          configuration: request.configurationJson === undefined ? undefined : parseJsonObject("configuration", request.configurationJson),
          externalIds: request.externalIds?.values,
        },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target) };
    },

    uninstallFromTarget: async (request) => ({
      existed: await uninstallFromTarget(
        em(),
        { caller: request.caller, name: request.name, installationId: request.installationId, kind: targetKindOf(targetKindFromProto(request.kind)), targetId: request.targetId },
        deps,
      ),
    }),

    listIntegrationEvents: async (request) => {
      const page = await listIntegrationEvents(em(), { caller: request.caller, name: request.name, page: pageRequest(request.page) }, deps);
      return { events: page.items.map(integrationEventToProto), page: pageInfo(page) };
    },

    getIntegrationEvent: async (request) => {
      const event = await getIntegrationEvent(em(), { caller: request.caller, name: request.name, eventId: request.eventId }, deps);
      return {
        event: integrationEventToProto(event),
        logs: event.trace.map((line) => ({ message: line.message, timestamp: new Date(line.timestamp), level: line.level })),
      };
    },

    setDevelopmentMode: async (request) => {
      await setDevelopmentMode(em(), { caller: request.caller, name: request.name, tunnelUrl: request.tunnelUrl, all: request.all }, deps);
      return {};
    },

    disableDevelopmentMode: async (request) => {
      await setDevelopmentMode(em(), { caller: request.caller, name: request.name, tunnelUrl: null, all: false }, deps);
      return {};
    },

    renderIntegrationUi: async (request) => {
      const rendered = await renderIntegrationUI(
        em(),
        {
          caller: request.caller,
          name: request.name,
          componentId: request.componentId,
          propsJson: request.propsJson,
          stateJson: request.stateJson,
          contextJson: request.contextJson,
          actionJson: request.actionJson,
        },
        deps,
      );
      return { outputJson: JSON.stringify(rendered.output), cacheControl: rendered.cacheControl };
    },

    handleInstallationRequest: async (request) => {
      const answer = await handleInstallationRequest(
        em(),
        { name: request.name, installationId: request.installationId, method: request.method, path: request.path, headers: request.headers, body: request.body },
        deps,
      );
      return { status: answer.status, headers: headerPairs(answer.headers), body: Buffer.from(answer.body) };
    },

    getPublishedScript: async (request) => {
      const answer = await getPublishedScript(em(), { name: request.name, installationId: request.installationId, siteId: request.siteId }, deps);
      return { status: answer.status, headers: headerPairs(answer.headers), body: Buffer.from(answer.body) };
    },

    listSiteScripts: async (request) => ({ scripts: await listSiteScripts(em(), { siteId: request.siteId }) }),

    getIntegrationAsset: async (request) => {
      const asset = await getIntegrationAsset(em(), { name: request.name, assetId: request.assetId });
      return { contentType: asset.contentType, content: Buffer.from(asset.content) };
    },

    reportSiteViews: async (request) => ({
      events: await reportSiteViews(
        em(),
        {
          views: request.views.map((view) => ({
            organizationId: view.organizationId,
            siteId: view.siteId,
            siteSpaceId: view.siteSpaceId,
            spaceId: view.spaceId,
            pageId: view.pageId,
            url: view.url,
            referrer: view.referrer,
            anonymousId: view.anonymousId,
            userAgent: view.userAgent,
            language: view.language,
          })),
        },
        deps,
      ),
    }),
  };
}

