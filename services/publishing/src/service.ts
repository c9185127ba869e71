import { fileURLToPath } from "node:url";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import {
  createPromiseClient,
  forkEm,
  MembershipCache,
  followMemberEvents,
  membershipEventsConsumer,
  startService,
  type Clock,
  type Logger,
  type PromiseClient,
  type RunningService,
  type ServiceDeps,
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
  identity: PromiseClient<typeof IdentityServiceService>;
  memberships: MembershipCache;
  spaces: PromiseClient<typeof SpaceServiceService>;
}

/** How the runtime assembles the publishing service from its config and upstream clients. */
export function publishingServiceSpec(config: PublishingConfig, upstreams: Upstreams): ServiceSpec {
  // The runtime hands every hook the same ServiceDeps; the use cases' deps are built from it once.
  let built: UseCaseDeps | undefined;
  const useCaseDeps = (deps: ServiceDeps): UseCaseDeps =>
    (built ??= {
      clock: deps.clock,
      unitOfWork: publishingUnitOfWork(deps.unitOfWork, { clock: deps.clock }),
      identity: upstreams.identity,
      memberships: upstreams.memberships,
      spaces: upstreams.spaces,
    });
  return {
    name: "publishing",
    context: PUBLISHING_EVENT_CONTEXT,
    entities: publishingEntities,
    migrationsPath: PUBLISHING_MIGRATIONS_PATH,
    grpc: (deps) => publishingGrpcServices(() => forkEm(deps.orm), useCaseDeps(deps)),
    consumers: (deps) => [...contentEventConsumers(useCaseDeps(deps), config), membershipEventsConsumer(upstreams.memberships, config.MEMBERSHIP_EVENTS_CONSUMER)],
  };
}

/** Starts the publishing service: one channel per upstream (identity, content), then the runtime service. */
export async function startPublishingService(config: PublishingConfig, options: { clock?: Clock; logger?: Logger } = {}): Promise<RunningService> {
  const identity = createPromiseClient(IdentityServiceService, config.IDENTITY_GRPC_ADDRESS, { defaultTimeoutMs: 5_000 });
  const upstreams: Upstreams = {
    identity,
    memberships: new MembershipCache(identity, config.MEMBERSHIP_CACHE_TTL_MS),
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
