import { fileURLToPath } from "node:url";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { InstallationServiceService } from "@imprint/proto/integration/v1/installations";
import { IntegrationEventServiceService } from "@imprint/proto/integration/v1/integration_events";
import { IntegrationServiceService } from "@imprint/proto/integration/v1/integrations";
import { ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import { TargetInstallationServiceService } from "@imprint/proto/integration/v1/target_installations";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import {
  createLogger,
  type EventWatch,
  followedMemberships,
  forkEm,
  identityUpstream,
  type Logger,
  membershipEventsConsumer,
  type OpenedUpstreams,
  type UpstreamSpecs,
  queryRows,
  resolveKeptSecret,
  type RunningService,
  safeFetchPolicy,
  SecretBox,
  type ServiceDeps,
  type ServiceSpec,
  sql,
  startService,
  type ServiceStartOptions,
} from "@imprint/runtime";
import type { IntegrationConfig } from "./config.js";
import { contentEventConsumers } from "./consumers/content-events.js";
import { publishingEventConsumers } from "./consumers/publishing-events.js";
import { InstallationTokens } from "./delivery/installation-tokens.js";
import { followRenderLookups, RenderLookups, type RenderLookupLoaders } from "./delivery/render-lookups.js";
import { ScriptCalls } from "./delivery/script-calls.js";
import { ScriptTexts, type ScriptLoader } from "./delivery/script-texts.js";
import type { UseCaseDeps } from "./deps.js";
import { integrationEntities } from "./domain/entities.js";
import { TargetInstallation } from "./domain/installation.js";
import { Integration } from "./domain/integration.js";
import { INTEGRATION_EVENT_CONTEXT } from "./events.js";
import { INSTALLATION_SERVICE_NAME, installationServiceImplementation } from "./grpc/installation-service.js";
import { INTEGRATION_EVENT_SERVICE_NAME, integrationEventServiceImplementation } from "./grpc/integration-event-service.js";
import { INTEGRATION_SERVICE_NAME, integrationServiceImplementation } from "./grpc/integration-service.js";
import { SCRIPT_SERVICE_NAME, scriptServiceImplementation } from "./grpc/script-service.js";
import { TARGET_INSTALLATION_SERVICE_NAME, targetInstallationServiceImplementation } from "./grpc/target-installation-service.js";
import { deliverEventsJob } from "./jobs/deliver-events.js";
import { createSandboxPool, type SandboxPool } from "./sandbox/index.js";
import { findInstallationPlace } from "./use-cases/shared/installations.js";
import { SpaceReads } from "./upstreams/space-reads.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const INTEGRATION_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

/** The services integration calls: identity's, content's spaces (installations' scopes), publishing's sites. */
const integrationUpstreams = (config: IntegrationConfig) =>
  ({
    identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS),
    content: { address: config.CONTENT_GRPC_ADDRESS, services: { spaces: SpaceServiceService } },
    publishing: { address: config.PUBLISHING_GRPC_ADDRESS, services: { sites: SiteServiceService } },
  }) satisfies UpstreamSpecs;
type IntegrationUpstreams = ReturnType<typeof integrationUpstreams>;

/** What the service has before it starts besides its upstreams: the secrets key and its logger. */
interface Machinery {
  secrets: SecretBox;
  logger: Logger;
}

/** The use cases' deps, with the sandbox's worker threads their script calls run on (closed at stop). */
type IntegrationDeps = UseCaseDeps & { pool: SandboxPool };
/** The per-replica event watches the deps stop at close. */
type Watches = { memberEvents: EventWatch; renderLookupEvents: EventWatch };

/** Script texts kept in memory per process: the sandbox's warm runtimes hold far fewer scripts than this. */
const SCRIPT_TEXTS_BYTES = 64 * 1024 * 1024;

/** One version of an integration's script, from the database. */
function publishedScript(orm: ServiceDeps["orm"]): ScriptLoader {
  return async (integrationId, version) => {
    const rows = await queryRows(forkEm(orm), sql<{ script: string }>`select script from integrations where id = ${integrationId} and version = ${version}`);
    return rows[0]?.script ?? null;
  };
}

/** What renders look up, from the database, each in an EntityManager of its own (the kept rows outlive any request's). */
function renderLookupLoaders(orm: ServiceDeps["orm"]): RenderLookupLoaders {
  return {
    integration: (name) => forkEm(orm).findOne(Integration, { name }),
    place: (integrationId, organizationId, spaceId) => findInstallationPlace(forkEm(orm), integrationId, organizationId, spaceId),
    siteInstallation: (integrationId, siteId) => forkEm(orm).findOne(TargetInstallation, { integrationId, kind: "site", targetId: siteId }),
  };
}

/** How the runtime assembles the integration service from its config, upstream clients and sandbox. */
export function integrationServiceSpec(config: IntegrationConfig, machinery: Machinery): ServiceSpec<IntegrationDeps & Watches, IntegrationUpstreams> {
  const buildDeps = (runtime: ServiceDeps, upstreams: OpenedUpstreams<IntegrationUpstreams>): IntegrationDeps & Watches => {
    const memberships = followedMemberships(upstreams.identity.members, config.MEMBERSHIP_CACHE_TTL_MS, { nats: runtime.nats, logger: machinery.logger });
    const pool = createSandboxPool({
      limits: {
        memoryBytes: config.INTEGRATION_SCRIPT_MEMORY_MB * 1024 * 1024,
        cpuMs: config.INTEGRATION_SCRIPT_CPU_MS,
        wallMs: config.INTEGRATION_SCRIPT_WALL_MS,
        outputBytes: config.INTEGRATION_SCRIPT_OUTPUT_BYTES,
      },
      workers: config.INTEGRATION_SANDBOX_WORKERS,
      logger: { warn: (fields, message) => machinery.logger.warn(message, fields as Record<string, unknown>) },
    });
    const fetchPolicy = safeFetchPolicy(
      { allowPrivateAddresses: config.IMPRINT_ALLOW_PRIVATE_FETCH, service: "integration", dnsServers: config.IMPRINT_FETCH_DNS_SERVERS },
      { userAgent: "Imprint-Integrations/1.0" },
    );
    const renderLookups = new RenderLookups(renderLookupLoaders(runtime.orm), config.INTEGRATION_RENDER_CACHE_TTL_MS);
    return {
      pool,
      fetchPolicy,
      clock: runtime.clock,
      logger: machinery.logger,
      unitOfWork: runtime.unitOfWork,
      jobs: runtime.jobs,
      identity: upstreams.identity,
      memberships: memberships.cache,
      memberEvents: memberships.follower,
      spaces: upstreams.content.spaces,
      spaceReads: new SpaceReads(upstreams.content.spaces, config.MEMBERSHIP_CACHE_TTL_MS),
      sites: upstreams.publishing.sites,
      secrets: machinery.secrets,
      renderLookups,
      renderLookupEvents: followRenderLookups(renderLookups, runtime.nats, machinery.logger),
      tokens: new InstallationTokens(upstreams.identity, runtime.clock, config.INTEGRATION_TOKEN_TTL_SECONDS),
      scripts: new ScriptCalls({
        pool,
        scripts: new ScriptTexts(publishedScript(runtime.orm), SCRIPT_TEXTS_BYTES),
        fetchPolicy,
        publicUrl: config.IMPRINT_PUBLIC_URL,
        clock: runtime.clock,
        maxResponseBytes: config.INTEGRATION_SCRIPT_OUTPUT_BYTES,
        tunnelTimeoutMs: config.INTEGRATION_SCRIPT_WALL_MS,
      }),
      settings: {
        publicUrl: config.IMPRINT_PUBLIC_URL,
        tokenTtlSeconds: config.INTEGRATION_TOKEN_TTL_SECONDS,
        deliveryAttempts: config.INTEGRATION_DELIVERY_ATTEMPTS,
        deliveryBackoffMs: config.INTEGRATION_DELIVERY_BACKOFF_MS,
        deliveryConcurrency: config.INTEGRATION_DELIVERY_CONCURRENCY,
      },
    };
  };
  return {
    name: "integration",
    context: INTEGRATION_EVENT_CONTEXT,
    entities: integrationEntities,
    migrationsPath: INTEGRATION_MIGRATIONS_PATH,
    upstreams: integrationUpstreams(config),
    deps: {
      build: buildDeps,
      close: async (deps) => {
        await deps.memberEvents.stop();
        await deps.renderLookupEvents.stop();
        await deps.pool.close();
      },
    },
    grpc: (deps, { orm }) => {
      const em = () => forkEm(orm);
      return [
        { name: INTEGRATION_SERVICE_NAME, definition: IntegrationServiceService, implementation: integrationServiceImplementation(em, deps) },
        { name: INSTALLATION_SERVICE_NAME, definition: InstallationServiceService, implementation: installationServiceImplementation(em, deps) },
        {
          name: TARGET_INSTALLATION_SERVICE_NAME,
          definition: TargetInstallationServiceService,
          implementation: targetInstallationServiceImplementation(em, deps),
        },
        { name: INTEGRATION_EVENT_SERVICE_NAME, definition: IntegrationEventServiceService, implementation: integrationEventServiceImplementation(em, deps) },
        { name: SCRIPT_SERVICE_NAME, definition: ScriptServiceService, implementation: scriptServiceImplementation(em, deps) },
      ];
    },
    consumers: (deps) => [
      ...contentEventConsumers(deps, config),
      ...publishingEventConsumers(deps, config),
      membershipEventsConsumer(deps.memberships, config.MEMBERSHIP_EVENTS_CONSUMER),
    ],
    jobs: (deps, { orm }) => [deliverEventsJob(orm, deps)],
  };
}

/** Starts the integration service: the secrets key, then the runtime service (which opens its upstreams' clients; its deps start the sandbox's worker threads). */
export async function startIntegrationService(config: IntegrationConfig, options: ServiceStartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger("integration", { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const secretsKey = await resolveKeptSecret({
    configured: config.INTEGRATION_SECRETS_KEY,
    dataDir: config.IMPRINT_DATA_DIR,
    fileName: "integration-secrets-key",
    service: "integration",
    setting: "INTEGRATION_SECRETS_KEY",
  });
  return startService(integrationServiceSpec(config, { secrets: new SecretBox(secretsKey), logger }), config, { ...options, logger });
}
