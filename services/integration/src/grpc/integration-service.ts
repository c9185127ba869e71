import type { IntegrationServiceService } from "@imprint/proto/integration/v1/integrations";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getIntegration } from "../use-cases/integrations/get-integration.js";
import { getIntegrationAsset } from "../use-cases/integrations/get-integration-asset.js";
import { listIntegrations } from "../use-cases/integrations/list-integrations.js";
import { publishIntegration } from "../use-cases/integrations/publish-integration.js";
import { setDevelopmentMode } from "../use-cases/integrations/set-development-mode.js";
import { unpublishIntegration } from "../use-cases/integrations/unpublish-integration.js";
import { integrationToProto } from "./mappers.js";

export const INTEGRATION_SERVICE_NAME = "imprint.integration.v1.IntegrationService";

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
          scope: { organizationId: request.organizationId, siteId: request.siteId },
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

    getIntegrationAsset: async (request) => {
      const asset = await getIntegrationAsset(em(), { name: request.name, assetId: request.assetId });
      return { contentType: asset.contentType, content: Buffer.from(asset.content) };
    },

    setDevelopmentMode: async (request) => {
      await setDevelopmentMode(em(), { caller: request.caller, name: request.name, tunnelUrl: request.tunnelUrl, all: request.all }, deps);
      return {};
    },

    disableDevelopmentMode: async (request) => {
      await setDevelopmentMode(em(), { caller: request.caller, name: request.name, tunnelUrl: null, all: false }, deps);
      return {};
    },
  };
}
