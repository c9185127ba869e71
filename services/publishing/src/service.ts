import { fileURLToPath } from "node:url";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SearchServiceService } from "@imprint/proto/content/v1/search";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import {
  followedMemberships,
  forkEm,
  IDENTITY_SERVICES,
  identityUpstream,
  membershipEventsConsumer,
  startService,
  type EventWatch,
  type RunningService,
  type ServiceSpec,
  type UpstreamSpec,
  type ServiceStartOptions,
} from "@imprint/runtime";
import type { PublishingConfig } from "./config.js";
import { contentEventConsumers, pageMoveConsumer } from "./consumers/content-events.js";
import { teamMembershipsConsumer } from "./consumers/team-memberships.js";
import { teamMembershipReconcileJob } from "./jobs/reconcile-team-memberships.js";
import type { UseCaseDeps } from "./deps.js";
import { publishingEntities } from "./domain/entities.js";
import { PUBLISHING_EVENT_CONTEXT } from "./events.js";
import { publishingUnitOfWork } from "./use-cases/shared/publications.js";
import { publishingGrpcServices } from "./grpc/services.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const PUBLISHING_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

/** How the runtime assembles the publishing service from its config: identity's and content's services it calls, its deps. */
export function publishingServiceSpec(config: PublishingConfig) {
  return {
    name: "publishing",
    context: PUBLISHING_EVENT_CONTEXT,
    entities: publishingEntities,
    migrationsPath: PUBLISHING_MIGRATIONS_PATH,
    upstreams: {
      identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS),
      content: {
        address: config.CONTENT_GRPC_ADDRESS,
        services: { spaces: SpaceServiceService, revisions: RevisionServiceService, published: PublishedContentServiceService, search: SearchServiceService },
      },
    },
    deps: {
      build: (runtime, upstreams) => {
        const memberships = followedMemberships(upstreams.identity.members, config.MEMBERSHIP_CACHE_TTL_MS, runtime);
        return {
          clock: runtime.clock,
          unitOfWork: publishingUnitOfWork(runtime.unitOfWork, { clock: runtime.clock }),
          identity: upstreams.identity,
          memberships: memberships.cache,
          spaces: upstreams.content.spaces,
          revisions: upstreams.content.revisions,
          published: upstreams.content.published,
          search: upstreams.content.search,
          memberEvents: memberships.follower,
        };
      },
      close: (deps) => deps.memberEvents.stop(),
    },
    grpc: (deps, { orm }) => publishingGrpcServices(() => forkEm(orm), deps),
    consumers: (deps) => [
      ...contentEventConsumers(deps, config),
      pageMoveConsumer(deps, config),
      membershipEventsConsumer(deps.memberships, config.MEMBERSHIP_EVENTS_CONSUMER),
      teamMembershipsConsumer(config.TEAMS_EVENTS_CONSUMER),
    ],
    jobs: (deps, runtime) => [teamMembershipReconcileJob(deps, runtime, config.TEAM_RECONCILE_INTERVAL_MS)],
  } satisfies ServiceSpec<UseCaseDeps & { memberEvents: EventWatch }, PublishingUpstreams>;
}

type PublishingUpstreams = {
  identity: UpstreamSpec<typeof IDENTITY_SERVICES>;
  content: UpstreamSpec<{
    spaces: typeof SpaceServiceService;
    revisions: typeof RevisionServiceService;
    published: typeof PublishedContentServiceService;
    search: typeof SearchServiceService;
  }>;
};

/** Starts the publishing service (its upstreams' clients are opened and closed by the runtime). */
export function startPublishingService(config: PublishingConfig, options: ServiceStartOptions = {}): Promise<RunningService> {
  return startService(publishingServiceSpec(config), config, options);
}
