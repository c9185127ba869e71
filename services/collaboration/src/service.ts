import { fileURLToPath } from "node:url";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { ChangeRequestReviewServiceService } from "@imprint/proto/collaboration/v1/reviews";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { forkEm, identityUpstream, startService, type RunningService, type ServiceSpec, type UpstreamSpecs, type ServiceStartOptions } from "@imprint/runtime";
import type { CollaborationConfig } from "./config.js";
import { contentEventConsumers } from "./consumers/content-events.js";
import type { UseCaseDeps } from "./deps.js";
import { collaborationEntities } from "./domain/entities.js";
import { COLLABORATION_EVENT_CONTEXT } from "./events.js";
import { CHANGE_REQUEST_SERVICE_NAME, changeRequestServiceImplementation } from "./grpc/change-request-service.js";
import { MergeResumer } from "./jobs/merge-resumer.js";
import { COMMENT_SERVICE_NAME, commentServiceImplementation } from "./grpc/comment-service.js";
import { REVIEW_SERVICE_NAME, reviewServiceImplementation } from "./grpc/review-service.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const COLLABORATION_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

/** Content's services a change request uses, and identity's. */
function collaborationUpstreams(config: CollaborationConfig) {
  return {
    content: {
      address: config.CONTENT_GRPC_ADDRESS,
      services: { spaces: SpaceServiceService, branches: BranchServiceService, revisions: RevisionServiceService, editing: EditingServiceService },
      // A batch may fetch up to 1,000 files from their URLs before it applies.
      timeoutsMs: { editing: 120_000 },
    },
    identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS),
  } satisfies UpstreamSpecs;
}

/** How long a merge call to content may still be running (its deadline, with a margin): after it, a merge content has not done is dropped. */
const MERGE_IN_FLIGHT_MS = 15_000;

/** The use cases' deps, with the resumer itself (they only wake it; the service starts and stops it). */
type CollaborationDeps = UseCaseDeps & { merges: MergeResumer };

/** How the runtime assembles the collaboration service from its config: content's and identity's services it calls, its deps. */
export function collaborationServiceSpec(config: CollaborationConfig): ServiceSpec<CollaborationDeps, ReturnType<typeof collaborationUpstreams>> {
  return {
    name: "collaboration",
    context: COLLABORATION_EVENT_CONTEXT,
    entities: collaborationEntities,
    migrationsPath: COLLABORATION_MIGRATIONS_PATH,
    upstreams: collaborationUpstreams(config),
    deps: {
      build: (runtime, upstreams) => ({
        clock: runtime.clock,
        unitOfWork: runtime.unitOfWork,
        content: upstreams.content,
        identity: upstreams.identity,
        merges: new MergeResumer({ intervalMs: config.MERGE_RESUME_INTERVAL_MS, idleMs: 10 * config.MERGE_RESUME_INTERVAL_MS, inFlightMs: MERGE_IN_FLIGHT_MS }),
      }),
      close: (deps) => deps.merges.stop(),
    },
    grpc: (deps, { orm }) => {
      const em = () => forkEm(orm);
      return [
        { name: CHANGE_REQUEST_SERVICE_NAME, definition: ChangeRequestServiceService, implementation: changeRequestServiceImplementation(em, deps) },
        { name: COMMENT_SERVICE_NAME, definition: CommentServiceService, implementation: commentServiceImplementation(em, deps) },
        { name: REVIEW_SERVICE_NAME, definition: ChangeRequestReviewServiceService, implementation: reviewServiceImplementation(em, deps) },
      ];
    },
    consumers: (deps) => contentEventConsumers(deps, config),
    // Merges an interruption left pending are settled as soon as the service is up (see MergeResumer).
    onStarted: (deps, { orm, logger }) => {
      deps.merges.start(() => forkEm(orm), deps, logger);
      return Promise.resolve();
    },
  };
}

/** Starts the collaboration service (its upstreams' clients are opened and closed by the runtime). */
export function startCollaborationService(config: CollaborationConfig, options: ServiceStartOptions = {}): Promise<RunningService> {
  return startService(collaborationServiceSpec(config), config, options);
}
