import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { IntegrationServiceService } from "@imprint/proto/integration/v1";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import { loadPublishingConfig, startPublishingService } from "@imprint/publishing";
import type { PromiseClient, RunningService } from "@imprint/runtime";
import { startServices, TestClock, testClient, testLogger, type LogLine, type ServiceClients } from "@imprint/runtime/testing";
import { loadIntegrationConfig } from "../../src/config.js";
import { startIntegrationService } from "../../src/service.js";

export interface IntegrationHarness extends Pick<ServiceClients, "identity" | "spaces" | "editing" | "collections"> {
  /** The integration service's API. */
  integrations: PromiseClient<typeof IntegrationServiceService>;
  /** Publishing's API (sites to install on). */
  sites: PromiseClient<typeof SiteServiceService>;
  integration: RunningService;
  /** Every line the integration service logged, at every level (to check what never reaches a log). */
  integrationLogs: LogLine[];
  stop(): Promise<void>;
}

/**
 * Identity, content, publishing and integration through the test kit. Scripts may reach loopback
 * (tunnels and test servers listen there); retries are quick and the sandbox's limits small so that
 * runaway scripts are stopped within a test's patience. `env` overrides integration's settings.
 */
export async function startIntegrationHarness(env: Record<string, string> = {}): Promise<IntegrationHarness> {
  const integrationLogger = testLogger("integration", { level: "debug", record: true });
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService },
    { name: "publishing", config: loadPublishingConfig, start: startPublishingService },
    {
      name: "integration",
      config: loadIntegrationConfig,
      start: startIntegrationService,
      clock: new TestClock({ distinct: true }).now,
      logger: integrationLogger,
      env: {
        IMPRINT_ALLOW_PRIVATE_FETCH: "true",
        INTEGRATION_DELIVERY_BACKOFF_MS: "50",
        INTEGRATION_DELIVERY_ATTEMPTS: "3",
        INTEGRATION_SCRIPT_CPU_MS: "500",
        INTEGRATION_SCRIPT_WALL_MS: "3000",
        INTEGRATION_SCRIPT_MEMORY_MB: "32",
        MEMBERSHIP_CACHE_TTL_MS: String(10 * 60 * 1000),
        ...env,
      },
    },
  ]);
  const integrations = testClient(IntegrationServiceService, services.address("integration"));
  const sites = testClient(SiteServiceService, services.address("publishing"));
  return {
    identity: services.clients.identity,
    spaces: services.clients.spaces,
    editing: services.clients.editing,
    collections: services.clients.collections,
    integrations,
    sites,
    integration: services.service("integration"),
    integrationLogs: integrationLogger.lines,
    stop: async () => {
      integrations.close();
      sites.close();
      await services.stop();
    },
  };
}
