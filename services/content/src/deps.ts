import type { SpaceGitSync } from "@imprint/proto/content/v1/git";
import type { PublishedGitSource } from "@imprint/proto/content/v1/published";
import type { CallerInput, Clock, IdentityClients, Logger, SafeFetchPolicy, SecretBox, ServiceDeps, UnitOfWork } from "@imprint/runtime";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import type { MembershipCache } from "./access/memberships.js";
import type { BlobStore } from "./blob-store.js";
import type { ResolvedContentConfig } from "./config.js";
import type { ImportRunLimits } from "./import/domain/import-run.js";
import type { GitLimits } from "./git/domain/limits.js";
import type { LinkSitesOf } from "./git/domain/markdown-text.js";
import type { ImportLimits } from "./import/domain/limits.js";
import type { OpenApiProcessingLimits } from "./openapi/domain/limits.js";
import type { FileUrlSigner } from "./revisions/domain/files/signed-url.js";
import type { RevisionCaches } from "./revisions/domain/tree/caches.js";

/*
 * What content's use cases, handlers, consumers and jobs receive. Types only, and a leaf: use cases
 * import their deps from here, never from service.ts, which builds every one of them once at start.
 */

/** The content service's runtime deps and parts, for its handlers, consumers and jobs; use cases take a narrower one below. */
export interface ContentDeps extends ServiceDeps {
  config: ResolvedContentConfig;
  clock: Clock;
  /** Identity, for the caller's organization role (through `memberships`) and the reconciliation of team memberships. */
  identity: IdentityClients;
  /** Organization roles from identity, cached and invalidated by identity's member events. */
  memberships: MembershipCache;
  /** File bytes (content-addressed). */
  blobStore: BlobStore;
}

/** What access checks need besides the EntityManager. */
export interface AccessDeps {
  memberships: MembershipCache;
}

/** What most use cases need besides their EntityManager: access checks, the clock and the unit of work. */
export interface UseCaseDeps extends AccessDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
}

/** What the spaces' and collections' use cases need: duplicates and purges also touch file blobs and log their figures. */
export interface SpaceDeps extends UseCaseDeps {
  blobStore: BlobStore;
  logger: Logger;
  spaceContent: SpaceContent;
}

/**
 * What spaces ask of the modules that hold a space's content (the revision store, Git sync, import
 * runs): those modules check access through spaces, so spaces reaches them through this port,
 * built from their façades at the service's root (space-content.ts), never by importing them.
 */
export interface SpaceContent {
  /** A new space's first (empty) revision, in the space's transaction; the caller stores the id as the space's `revisionId`. */
  createInitialRevision(
    tx: EntityManager,
    input: { spaceId: string; organizationId: string; actor: CallerInput | null; clock: Clock },
  ): Promise<{ revisionId: string }>;
  /** A duplicated space's first revision: the source revision's content as is, in the copy's transaction. */
  duplicateContent(
    tx: EntityManager,
    input: { fromSpaceId: string; fromRevisionId: string; toSpaceId: string; toOrganizationId: string; clock?: Clock; actor?: CallerInput | null },
  ): Promise<{ revisionId: string }>;
  /** Removes what every module holds of a space being purged (content, branches, Git sync state, import runs), in the purge's transaction; answers the blobs no other space uses. */
  purgeContent(tx: EntityManager, spaceId: string): Promise<{ orphanedBlobs: string[] }>;
  /** Deletes those blobs once the purge committed; answers how many were deleted. */
  deleteOrphanedBlobs(em: EntityManager, blobStore: BlobStore, keys: readonly string[]): Promise<number>;
  /** The space's Git sync state as `Space.git_sync` carries it (Git sync owns that mapping); none when it never synced. */
  gitSync(em: EntityManager, spaceId: string): Promise<SpaceGitSync | undefined>;
}

/** What spaces' handlers and purge job receive: the service's deps and the port to the content modules. */
export interface SpaceServiceDeps extends ContentDeps {
  spaceContent: SpaceContent;
}

/** What the translation settings' use cases need. */
export type TranslationDeps = UseCaseDeps;

/** What the revision store's use cases (and branches, import, exports) need besides their EntityManager. */
export interface RevisionDeps extends UseCaseDeps {
  blobStore: BlobStore;
  /** One set per service: everything in it is immutable, so sharing only saves memory and misses. */
  caches: RevisionCaches;
  signer: FileUrlSigner;
  /** For the figures of long operations (merges, imports) once they are done. */
  logger: Logger;
}

/** Where a space's pages are in its synced Git repository (Git sync owns it; the published read carries it): none when it never synced. */
export type PublishedGitSourceOf = (em: EntityManager, spaceId: string) => Promise<PublishedGitSource | undefined>;

/** What the editing API needs: the revision store's deps and the fetch guard's policy (files uploaded from a URL). */
export interface EditingDeps extends RevisionDeps {
  fetchPolicy: SafeFetchPolicy;
}

/**
 * What the OpenAPI use cases need: `jobs.wake` starts the processing job (OPENAPI_PROCESSING_JOB)
 * at once when a source was queued; the fetch guard's policy refuses a private source when it is submitted.
 */
export interface OpenApiDeps extends UseCaseDeps {
  jobs: ServiceDeps["jobs"];
  fetchPolicy: SafeFetchPolicy;
}

/** What the OpenAPI processing job needs: its own EntityManagers (a claim, the fetch outside any transaction, the outcome), the fetch guard's policy and its limits. */
export interface OpenApiProcessorDeps {
  orm: MikroORM;
  clock: Clock;
  logger: Logger;
  unitOfWork: UnitOfWork;
  fetchPolicy: SafeFetchPolicy;
  limits: OpenApiProcessingLimits;
}

/** What the website import needs: the revision store's deps, the fetch guard's policy and the import's limits. */
export interface ImportDeps extends RevisionDeps {
  fetchPolicy: SafeFetchPolicy;
  limits: ImportLimits;
}

/** What import runs need: the import's deps, the job runner (starting a run wakes the import-runs job), and for the job its own EntityManagers and its limits. */
export interface ImportRunDeps extends ImportDeps {
  orm: MikroORM;
  jobs: ServiceDeps["jobs"];
  runLimits: ImportRunLimits;
}

/** What Git import and export need: the revision store's deps, the fetch guard's policy (http allowed with private fetches) and the limits. */
export interface GitDeps extends RevisionDeps {
  fetchPolicy: SafeFetchPolicy;
  allowHttp: boolean;
  /** The git executable (GIT_BINARY). */
  gitBinary: string;
  limits: GitLimits;
  /** Seals connections' credentials and webhook secrets (GIT_SECRETS_KEY). */
  secrets: SecretBox;
  /** The public API's base URL (IMPRINT_PUBLIC_URL): webhook URLs are under it. */
  publicUrl: string;
  /** Identity's users: the name and e-mail of who merged or edited, as a Git Sync export's author. */
  identity: Pick<IdentityClients, "users">;
  /** Wakes the Git sync job when a push queued an import. */
  jobs: ServiceDeps["jobs"];
  /** Retries of queued imports (GIT_SYNC_RETRY_MS, GIT_SYNC_MAX_ATTEMPTS) and the poll (GIT_SYNC_POLL_INTERVAL_MS, 0: off). */
  sync: { retryBaseMs: number; maxAttempts: number; pollIntervalMs: number };
  /** Bodies' link sites for exports, kept by body id (bodies never change under their id). */
  linkSites: LinkSitesOf;
}

/** What indexing needs besides its EntityManager. */
export interface SearchIndexDeps {
  /** The revision store's caches of immutable rows (shared with the reads when the service wires them so). */
  caches: RevisionCaches;
  clock: Clock;
}
