import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import {
  createPromiseClient,
  startService,
  type Clock,
  type Logger,
  type PromiseClient,
  type RunningService,
  type ServiceDeps,
  type ServiceRegistration,
  type ServiceSpec,
} from "@imprint/runtime";
import { MembershipCache, membershipEventsConsumer } from "./access/index.js";
import { FileSystemBlobStore, resolveFileUrlSecret, type BlobStore } from "./blob-store.js";
import type { ContentConfig, ResolvedContentConfig } from "./config.js";
import { Collection } from "./domain/collection.js";
import { Space } from "./domain/space.js";
import { COLLECTION_SERVICE_NAME, collectionServiceImplementation } from "./grpc/collection-service.js";
import { SPACE_SERVICE_NAME, spaceServiceImplementation } from "./grpc/space-service.js";
import { importGrpcServices } from "./import/index.js";
import { linkConsumers, linkEntities, linkGrpcServices } from "./links/index.js";
import { revisionEntities, revisionGrpcServices } from "./revisions/index.js";
import { openApiEntities, openApiGrpcServices, openApiJob } from "./openapi/index.js";
import { translationEntities, translationGrpcServices } from "./translations/index.js";
import { searchConsumers, searchEntities, searchGrpcServices } from "./search/index.js";
import { housekeepingJobs } from "./jobs/housekeeping.js";
import { exportEntities, exportGrpcServices } from "./exports/index.js";
import { branchGrpcServices } from "./revisions/branches/index.js";
import { collaborationCountersConsumer } from "./collaboration-counters.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const CONTENT_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));
export const CONTENT_CONTEXT = "content";

/** What the content service's transports and use cases are built from. */
export interface ContentDeps extends ServiceDeps {
  config: ResolvedContentConfig;
  clock: Clock;
  /** Identity, for the caller's organization role (through `memberships`) and nothing else. */
  identity: PromiseClient<typeof IdentityServiceService>;
  /** Organization roles from identity, cached and invalidated by identity's member events. */
  memberships: MembershipCache;
  /** File bytes (content-addressed). */
  blobStore: BlobStore;
}

/** Entities of collections and spaces (the revision store and the runtime add theirs). */
export const collectionAndSpaceEntities = [Collection, Space];

interface ContentParts {
  config: ResolvedContentConfig;
  identity: PromiseClient<typeof IdentityServiceService>;
  memberships: MembershipCache;
  blobStore: BlobStore;
}

/** How the runtime assembles the content service from its parts. */
export function contentServiceSpec(parts: ContentParts): ServiceSpec {
  let built: ContentDeps | undefined;
  // grpc, consumers and jobs receive the same runtime deps; extend them once.
  const contentDeps = (deps: ServiceDeps): ContentDeps => {
    built ??= { ...deps, config: parts.config, identity: parts.identity, memberships: parts.memberships, blobStore: parts.blobStore };
    return built;
  };
  return {
    name: "content",
    context: CONTENT_CONTEXT,
    entities: [...collectionAndSpaceEntities, ...revisionEntities, ...openApiEntities, ...translationEntities, ...linkEntities, ...searchEntities, ...exportEntities],
    migrationsPath: CONTENT_MIGRATIONS_PATH,
    grpc: (deps) => {
      const content = contentDeps(deps);
      const services: ServiceRegistration[] = [
        { name: COLLECTION_SERVICE_NAME, definition: CollectionServiceService, implementation: collectionServiceImplementation(content) },
        { name: SPACE_SERVICE_NAME, definition: SpaceServiceService, implementation: spaceServiceImplementation(content) },
        ...revisionGrpcServices(content),
        ...importGrpcServices(content),
        ...openApiGrpcServices(content),
        ...translationGrpcServices(content),
        ...linkGrpcServices(content),
        ...searchGrpcServices(content),
        ...exportGrpcServices(content),
        ...branchGrpcServices(content),
      ];
      return services;
    },
    consumers: (deps) => [
      membershipEventsConsumer(contentDeps(deps).memberships, parts.config.MEMBERSHIP_EVENTS_CONSUMER),
      ...linkConsumers(contentDeps(deps)),
      ...searchConsumers(contentDeps(deps)),
      collaborationCountersConsumer(parts.config.COUNTERS_EVENTS_CONSUMER),
    ],
    jobs: (deps) => [...housekeepingJobs(contentDeps(deps)), openApiJob(contentDeps(deps))],
  };
}

/**
 * Starts the content service: resolves the file-URL key and blob directory, opens the identity
 * channel, then starts the runtime service (which starts the jobs: purge, export sweep, OpenAPI processing).
 */
export async function startContentService(config: ContentConfig, options: { clock?: Clock; logger?: Logger } = {}): Promise<RunningService> {
  const resolved: ResolvedContentConfig = {
    ...config,
    IMPRINT_FILE_URL_SECRET: await resolveFileUrlSecret(config.IMPRINT_FILE_URL_SECRET, config.IMPRINT_DATA_DIR),
    CONTENT_BLOB_DIR: config.CONTENT_BLOB_DIR ?? join(config.IMPRINT_DATA_DIR, "content-blobs"),
  };
  const identity = createPromiseClient(IdentityServiceService, config.IDENTITY_GRPC_ADDRESS, { defaultTimeoutMs: 5_000 });
  const memberships = new MembershipCache(identity, config.MEMBERSHIP_CACHE_TTL_MS);
  const blobStore = new FileSystemBlobStore(resolved.CONTENT_BLOB_DIR);
  await blobStore.prepare();
  let running: RunningService;
  try {
    running = await startService(contentServiceSpec({ config: resolved, identity, memberships, blobStore }), config, options);
  } catch (error) {
    identity.close();
    throw error;
  }
  return {
    ...running,
    stop: async () => {
      await running.stop();
      identity.close();
    },
  };
}
