import { fileURLToPath } from "node:url";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import {
  createIdentityClients,
  createPromiseClient,
  forkEm,
  startService,
  type Clock,
  type IdentityClients,
  type Logger,
  type RunningService,
  type ServiceSpec,
} from "@imprint/runtime";
import type { CollaborationConfig } from "./config.js";
import { contentEventConsumers } from "./consumers/content-events.js";
import type { ContentClients, UseCaseDeps } from "./deps.js";
import { collaborationEntities } from "./domain/entities.js";
import { COLLABORATION_EVENT_CONTEXT } from "./events.js";
import { CHANGE_REQUEST_SERVICE_NAME, changeRequestServiceImplementation } from "./grpc/change-request-service.js";
import { MergeResumer } from "./jobs/merge-resumer.js";
import { COMMENT_SERVICE_NAME, commentServiceImplementation } from "./grpc/comment-service.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const COLLABORATION_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

interface Upstreams {
  content: ContentClients;
  identity: IdentityClients;
}

/** How long a merge call to content may still be running (its deadline, with a margin): after it, a merge content has not done is dropped. */
const MERGE_IN_FLIGHT_MS = 15_000;

/** The use cases' deps, with the resumer itself (they only wake it; the service starts and stops it). */
type CollaborationDeps = UseCaseDeps & { merges: MergeResumer };

/** How the runtime assembles the collaboration service from its config and upstream clients. */
export function collaborationServiceSpec(config: CollaborationConfig, upstreams: Upstreams): ServiceSpec<CollaborationDeps> {
  return {
    name: "collaboration",
    context: COLLABORATION_EVENT_CONTEXT,
    entities: collaborationEntities,
    migrationsPath: COLLABORATION_MIGRATIONS_PATH,
    deps: {
      build: (runtime) => ({
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

/** Starts the collaboration service: one channel per upstream (content, identity), then the runtime service. */
export async function startCollaborationService(config: CollaborationConfig, options: { clock?: Clock; logger?: Logger } = {}): Promise<RunningService> {
  // Content's clients share one channel configuration, hence one connection per copy of content.
  const channelDefinitions = [SpaceServiceService, BranchServiceService, RevisionServiceService, EditingServiceService];
  const timeouts = { defaultTimeoutMs: 10_000, channelDefinitions };
  const upstreams: Upstreams = {
    content: {
      spaces: createPromiseClient(SpaceServiceService, config.CONTENT_GRPC_ADDRESS, timeouts),
      branches: createPromiseClient(BranchServiceService, config.CONTENT_GRPC_ADDRESS, timeouts),
      revisions: createPromiseClient(RevisionServiceService, config.CONTENT_GRPC_ADDRESS, timeouts),
      // A batch may fetch up to 1,000 files from their URLs before it applies.
      editing: createPromiseClient(EditingServiceService, config.CONTENT_GRPC_ADDRESS, { defaultTimeoutMs: 120_000, channelDefinitions }),
    },
    identity: createIdentityClients(config.IDENTITY_GRPC_ADDRESS, { defaultTimeoutMs: 5_000 }),
  };
  const close = () => {
    for (const client of [upstreams.content.spaces, upstreams.content.branches, upstreams.content.revisions, upstreams.content.editing, upstreams.identity]) client.close();
  };
  let running: RunningService;
  try {
    running = await startService(collaborationServiceSpec(config, upstreams), config, options);
  } catch (error) {
    close();
    throw error;
  }
  return {
    ...running,
    stop: async () => {
      await running.stop();
      close();
    },
  };
}
