import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { InstallationServiceService } from "@imprint/proto/integration/v1/installations";
import { IntegrationEventServiceService } from "@imprint/proto/integration/v1/integration_events";
import { IntegrationServiceService } from "@imprint/proto/integration/v1/integrations";
import { ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import { TargetInstallationServiceService } from "@imprint/proto/integration/v1/target_installations";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import { loadPublishingConfig, startPublishingService } from "@imprint/publishing";
import type { PromiseClient, RunningService } from "@imprint/runtime";
import { startServices, TestClock, testClient, testLogger, type LogLine, type ServiceClients } from "@imprint/runtime/testing";
import { loadIntegrationConfig } from "../../src/config.js";
import { startIntegrationService } from "../../src/service.js";

export interface IntegrationHarness extends Pick<ServiceClients, "identity" | "spaces" | "editing" | "collections"> {
  /** The integration service's API, one client per service. */
  integrations: PromiseClient<typeof IntegrationServiceService>;
  installations: PromiseClient<typeof InstallationServiceService>;
  targetInstallations: PromiseClient<typeof TargetInstallationServiceService>;
  integrationEvents: PromiseClient<typeof IntegrationEventServiceService>;
  scripts: PromiseClient<typeof ScriptServiceService>;
  /** Publishing's API (sites to install on). */
  sites: PromiseClient<typeof SiteServiceService>;
  integration: RunningService;
  /** Every line the integration service logged, at every level (to check what never reaches a log). */
  integrationLogs: LogLine[];
  /** The integration service's clock (e.g. to bring a scheduled task due). */
  integrationClock: TestClock;
  /** Starts a second replica of the integration service (same database, secrets key and NATS), stopped with the harness. */
  startIntegrationReplica(env?: Record<string, string>): Promise<{ scripts: PromiseClient<typeof ScriptServiceService> }>;
  stop(): Promise<void>;
}

/**
 * Identity, content, publishing and integration through the test kit. Scripts may reach loopback
 * (tunnels and test servers listen there); retries are quick and the sandbox's limits small so that
 * runaway scripts are stopped within a test's patience. `env` overrides integration's settings.
 */
export async function startIntegrationHarness(env: Record<string, string> = {}): Promise<IntegrationHarness> {
  const integrationLogger = testLogger("integration", { level: "debug", record: true });
  const integrationClock = new TestClock({ distinct: true });
  const integrationEnv = {
    IMPRINT_ALLOW_PRIVATE_FETCH: "true",
    INTEGRATION_DELIVERY_BACKOFF_MS: "50",
    INTEGRATION_DELIVERY_ATTEMPTS: "3",
    INTEGRATION_SCRIPT_CPU_MS: "500",
    INTEGRATION_SCRIPT_WALL_MS: "3000",
    INTEGRATION_SCRIPT_MEMORY_MB: "32",
    MEMBERSHIP_CACHE_TTL_MS: String(10 * 60 * 1000),
    ...env,
  };
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService },
    { name: "publishing", config: loadPublishingConfig, start: startPublishingService },
    {
      name: "integration",
      config: loadIntegrationConfig,
      start: startIntegrationService,
      clock: integrationClock.now,
      logger: integrationLogger,
      env: integrationEnv,
    },
  ]);
  const integrationClients = {
    integrations: testClient(IntegrationServiceService, services.address("integration")),
    installations: testClient(InstallationServiceService, services.address("integration")),
    targetInstallations: testClient(TargetInstallationServiceService, services.address("integration")),
    integrationEvents: testClient(IntegrationEventServiceService, services.address("integration")),
    scripts: testClient(ScriptServiceService, services.address("integration")),
  };
  const sites = testClient(SiteServiceService, services.address("publishing"));
  const replicas: Array<{ stop(): Promise<void> }> = [];
  const startIntegrationReplica = async (replicaEnv: Record<string, string> = {}) => {
    const replica = await startServices([
      {
        name: "integration",
        config: loadIntegrationConfig,
        start: startIntegrationService,
        database: services.databaseUrl("integration"),
        env: {
          ...integrationEnv,
          // The first replica's data directory holds the secrets key both must share.
          IMPRINT_DATA_DIR: services.dataDir("integration"),
          IDENTITY_GRPC_ADDRESS: services.address("identity"),
          CONTENT_GRPC_ADDRESS: services.address("content"),
          PUBLISHING_GRPC_ADDRESS: services.address("publishing"),
          ...replicaEnv,
        },
      },
    ]);
    const scripts = testClient(ScriptServiceService, replica.address("integration"));
    replicas.push({
      stop: async () => {
        scripts.close();
        await replica.stop();
      },
    });
    return { scripts };
  };
  return {
    identity: services.clients.identity,
    spaces: services.clients.spaces,
    editing: services.clients.editing,
    collections: services.clients.collections,
    ...integrationClients,
    sites,
    integration: services.service("integration"),
    integrationLogs: integrationLogger.lines,
    integrationClock,
    startIntegrationReplica,
    stop: async () => {
      for (const replica of replicas) await replica.stop();
      for (const client of Object.values(integrationClients)) client.close();
      sites.close();
      await services.stop();
    },
  };
}
