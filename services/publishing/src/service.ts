import { fileURLToPath } from "node:url";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import {
  createIdentityClients,
  createPromiseClient,
  forkEm,
  MembershipCache,
  followMemberEvents,
  membershipEventsConsumer,
  startService,
  type Clock,
  type IdentityClients,
  type Logger,
  type PromiseClient,
  type RunningService,
  type ServiceSpec,
} from "@imprint/runtime";
import type { PublishingConfig } from "./config.js";
import { contentEventConsumers } from "./consumers/content-events.js";
import type { UseCaseDeps } from "./deps.js";
import { publishingEntities } from "./domain/entities.js";
import { PUBLISHING_EVENT_CONTEXT } from "./events.js";
import { publishingUnitOfWork } from "./use-cases/shared/publications.js";
import { publishingGrpcServices } from "./grpc/services.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const PUBLISHING_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

interface Upstreams {
  identity: IdentityClients;
  memberships: MembershipCache;
  spaces: PromiseClient<typeof SpaceServiceService>;
}

/** How the runtime assembles the publishing service from its config and upstream clients. */
export function publishingServiceSpec(config: PublishingConfig, upstreams: Upstreams): ServiceSpec<UseCaseDeps> {
  return {
    name: "publishing",
    context: PUBLISHING_EVENT_CONTEXT,
    entities: publishingEntities,
    migrationsPath: PUBLISHING_MIGRATIONS_PATH,
    deps: {
      build: (runtime) => ({
        clock: runtime.clock,
        unitOfWork: publishingUnitOfWork(runtime.unitOfWork, { clock: runtime.clock }),
        identity: upstreams.identity,
        memberships: upstreams.memberships,
        spaces: upstreams.spaces,
      }),
    },
    grpc: (deps, { orm }) => publishingGrpcServices(() => forkEm(orm), deps),
    consumers: (deps) => [...contentEventConsumers(deps, config), membershipEventsConsumer(upstreams.memberships, config.MEMBERSHIP_EVENTS_CONSUMER)],
  };
}

/** Starts the publishing service: one channel per upstream (identity, content), then the runtime service. */
export async function startPublishingService(config: PublishingConfig, options: { clock?: Clock; logger?: Logger } = {}): Promise<RunningService> {
  const identity = createIdentityClients(config.IDENTITY_GRPC_ADDRESS, { defaultTimeoutMs: 5_000 });
  const upstreams: Upstreams = {
    identity,
    memberships: new MembershipCache(identity.members, config.MEMBERSHIP_CACHE_TTL_MS),
    spaces: createPromiseClient(SpaceServiceService, config.CONTENT_GRPC_ADDRESS, { defaultTimeoutMs: 10_000 }),
  };
  const close = () => {
    upstreams.identity.close();
    upstreams.spaces.close();
  };
  let running: RunningService;
  try {
    running = await startService(publishingServiceSpec(config, upstreams), config, options);
  } catch (error) {
    close();
    throw error;
  }
  // Every replica hears identity's member events itself: roles may then be used while identity is unreachable.
  const memberEvents = followMemberEvents(upstreams.memberships, running.nats, options.logger);
  return {
    ...running,
    stop: async () => {
      await memberEvents.stop();
      await running.stop();
      close();
    },
  };
}
