import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import {
  followMemberEvents,
  identityUpstream,
  CacheBudget,
  membershipEventsConsumer,
  resolveKeptSecret,
  startService,
  type EventWatch,
  type OpenedUpstreams,
  type RunningService,
  type UpstreamSpecs,
  type ServiceDeps,
  type ServiceRegistration,
  type ServiceSpec,
  type ServiceStartOptions,
} from "@imprint/runtime";
import { accessEntities, MembershipCache, teamMembershipsConsumer, teamMembershipReconcileJob } from "./access/index.js";
import {
  TEAM_PERMISSION_SERVICE_NAME,
  teamPermissionServiceImplementation,
  USER_PERMISSION_SERVICE_NAME,
  userPermissionServiceImplementation,
  Collection,
  Space,
  COLLECTION_SERVICE_NAME,
  collectionServiceImplementation,
  SPACE_SERVICE_NAME,
  spaceServiceImplementation,
  spacePurgeJob,
  collaborationCountersConsumer,
  spacePublicationsConsumer,
} from "./spaces/index.js";
import { TeamPermissionServiceService, UserPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { FileSystemBlobStore, type BlobStore } from "./blob-store.js";
import type { S3BlobStore } from "./s3-blob-store.js";
import type { ContentConfig, ResolvedContentConfig } from "./config.js";
import { gitConsumers, gitDeps, gitEntities, gitGrpcServices, gitJobs, publishedGitSourceOf } from "./git/index.js";
import { importDeps, importGrpcServices, importJob, importRunEntities } from "./import/index.js";
import { linkConsumers, linkDeps, linkEntities, linkGrpcServices, type LinkDeps } from "./links/index.js";
import { branchGrpcServices, RevisionCaches, revisionDeps, revisionEntities, revisionGrpcServices } from "./revisions/index.js";
import { openApiEntities, openApiGrpcServices, openApiJob } from "./openapi/index.js";
import { translationEntities, translationGrpcServices } from "./translations/index.js";
import { searchConsumers, searchEntities, searchGrpcServices } from "./search/index.js";
import { exportEntities, exportGrpcServices, exportSweepJob } from "./exports/index.js";
import { spaceContent } from "./space-content.js";
import type { ContentDeps, GitDeps, ImportRunDeps, RevisionDeps, SpaceServiceDeps } from "./deps.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const CONTENT_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));
export const CONTENT_CONTEXT = "content";

/** Entities of collections and spaces (the revision store and the runtime add theirs). */
export const collectionAndSpaceEntities = [Collection, Space];

/** Every entity of the content service's database (the runtime adds its own tables). */
export const contentEntities = [
  ...accessEntities,
  ...collectionAndSpaceEntities,
  ...revisionEntities,
  ...openApiEntities,
  ...translationEntities,
  ...linkEntities,
  ...searchEntities,
  ...exportEntities,
  ...importRunEntities,
  ...gitEntities,
];

interface ContentParts {
  config: ResolvedContentConfig;
  blobStore: BlobStore;
}

/** Identity's services content calls (memberships, teams). */
const contentUpstreams = (config: ContentConfig) => ({ identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS) }) satisfies UpstreamSpecs;

/** Every module's deps, built once from the runtime's (see {@link buildDeps}). */
interface BuiltDeps {
  content: ContentDeps;
  spaces: SpaceServiceDeps;
  revision: RevisionDeps;
  /** The one memory budget of every cache of the process (CONTENT_CACHE_BYTES): the reads', indexing's and the links'. */
  treeCaches: CacheBudget;
  links: LinkDeps;
  imports: ImportRunDeps;
  git: GitDeps;
  /** Identity's member events, followed by every replica (stopped with the deps). */
  memberEvents: EventWatch;
}

/**
 * The deps of every module from the runtime's and the service's parts. The reads, the editing API,
 * branches, import, exports and links share one set of revision caches (immutable rows, so sharing
 * only saves memory and misses); search's consumer and prewarming keep caches of their own, sized
 * for indexing, all within one budget.
 */
function buildDeps(runtime: ServiceDeps, upstreams: OpenedUpstreams<ReturnType<typeof contentUpstreams>>, parts: ContentParts): BuiltDeps {
  const memberships = new MembershipCache(upstreams.identity.members, parts.config.MEMBERSHIP_CACHE_TTL_MS);
  const content: ContentDeps = { ...runtime, config: parts.config, identity: upstreams.identity, memberships, blobStore: parts.blobStore };
  const treeCaches = new CacheBudget(parts.config.CONTENT_CACHE_BYTES);
  const revision = revisionDeps(content, new RevisionCaches(treeCaches));
  // Every replica hears identity's member events itself: roles may then be used while identity is unreachable.
  const memberEvents = followMemberEvents(memberships.roles, runtime.nats, runtime.logger);
  return {
    content,
    spaces: { ...content, spaceContent },
    revision,
    treeCaches,
    links: linkDeps(revision, treeCaches, parts.config),
    imports: importDeps(content, revision),
    git: gitDeps(content, revision),
    memberEvents,
  };
}

/** How the runtime assembles the content service from its parts. */
export function contentServiceSpec(parts: ContentParts): ServiceSpec<BuiltDeps, ReturnType<typeof contentUpstreams>> {
  return {
    name: "content",
    context: CONTENT_CONTEXT,
    entities: contentEntities,
    migrationsPath: CONTENT_MIGRATIONS_PATH,
    upstreams: contentUpstreams(parts.config),
    deps: { build: (runtime, upstreams) => buildDeps(runtime, upstreams, parts), close: ({ memberEvents }) => memberEvents.stop() },
    grpc: ({ content, spaces, revision, links, imports, git, treeCaches }) => {
      const services: ServiceRegistration[] = [
        { name: COLLECTION_SERVICE_NAME, definition: CollectionServiceService, implementation: collectionServiceImplementation(spaces) },
        { name: SPACE_SERVICE_NAME, definition: SpaceServiceService, implementation: spaceServiceImplementation(spaces) },
        { name: TEAM_PERMISSION_SERVICE_NAME, definition: TeamPermissionServiceService, implementation: teamPermissionServiceImplementation(content) },
        { name: USER_PERMISSION_SERVICE_NAME, definition: UserPermissionServiceService, implementation: userPermissionServiceImplementation(content) },
        ...revisionGrpcServices(content.orm, revision, imports, publishedGitSourceOf),
        ...importGrpcServices(content.orm, imports),
        ...gitGrpcServices(content.orm, git),
        ...openApiGrpcServices(content),
        ...translationGrpcServices(content),
        ...linkGrpcServices(content.orm, links),
        ...searchGrpcServices(content, treeCaches),
        ...exportGrpcServices(content.orm, revision),
        ...branchGrpcServices(content.orm, revision),
      ];
      return services;
    },
    consumers: ({ content, links, git, treeCaches }) => [
      membershipEventsConsumer(content.memberships.roles, parts.config.MEMBERSHIP_EVENTS_CONSUMER),
      teamMembershipsConsumer(parts.config.TEAMS_EVENTS_CONSUMER, content.clock),
      ...linkConsumers(links, parts.config),
      ...gitConsumers(git, parts.config),
      ...searchConsumers(content, treeCaches),
      collaborationCountersConsumer(parts.config.COUNTERS_EVENTS_CONSUMER),
      spacePublicationsConsumer(parts.config.PUBLICATIONS_EVENTS_CONSUMER),
    ],
    jobs: ({ content, spaces, imports, git }) => [
      spacePurgeJob(spaces),
      exportSweepJob(content),
      openApiJob(content),
      importJob(imports),
      teamMembershipReconcileJob(content),
      ...gitJobs(content.orm, git),
    ],
  };
}

/**
 * Starts the content service: resolves the file-URL key and opens the file store (FILE_STORE), then
 * starts the runtime service (which opens the identity clients and starts the jobs: purge, export sweep, OpenAPI processing, import runs, team-membership reconciliation, Git sync).
 */
export async function startContentService(config: ContentConfig, options: ServiceStartOptions = {}): Promise<RunningService> {
  const resolved: ResolvedContentConfig = {
    ...config,
    // Kept in the data directory when not set, so that restarts and replicas sharing it sign alike.
    IMPRINT_FILE_URL_SECRET: await resolveKeptSecret({
      configured: config.IMPRINT_FILE_URL_SECRET,
      dataDir: config.IMPRINT_DATA_DIR,
      fileName: "file-url-secret",
      service: "content",
      setting: "IMPRINT_FILE_URL_SECRET",
    }),
    CONTENT_BLOB_DIR: config.CONTENT_BLOB_DIR ?? join(config.IMPRINT_DATA_DIR, "content-blobs"),
    GIT_SECRETS_KEY: await resolveKeptSecret({
      configured: config.GIT_SECRETS_KEY,
      dataDir: config.IMPRINT_DATA_DIR,
      fileName: "git-secrets-key",
      service: "content",
      setting: "GIT_SECRETS_KEY",
    }),
  };
  const blobStore = await fileStoreOf(resolved);
  const closeBlobStore = () => {
    if ("close" in blobStore) blobStore.close();
  };
  let running: RunningService;
  try {
    await blobStore.prepare();
    running = await startService(contentServiceSpec({ config: resolved, blobStore }), config, options);
  } catch (error) {
    closeBlobStore();
    throw error;
  }
  return {
    ...running,
    stop: async () => {
      await running.stop();
      closeBlobStore();
    },
  };
}

/**
 * The file store FILE_STORE names (loadContentConfig checked that S3_BUCKET is set for s3). The S3
 * store is loaded only then: the AWS SDK is several megabytes of code a process on the default
 * directory store never runs.
 */
async function fileStoreOf(config: ResolvedContentConfig): Promise<FileSystemBlobStore | S3BlobStore> {
  if (config.FILE_STORE === "directory") return new FileSystemBlobStore(config.CONTENT_BLOB_DIR);
  const { S3BlobStore } = await import("./s3-blob-store.js");
  const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = config;
  return new S3BlobStore({
    bucket: config.S3_BUCKET!,
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE ?? config.S3_ENDPOINT !== undefined,
    prefix: config.S3_PREFIX,
  });
}
