import { GitServiceService } from "@imprint/proto/content/v1/git";
import { CachedLoader, safeFetchPolicy, SecretBox, type ConsumerSpec, type JobSpec, type ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { gitEntities } from "./domain/git-sync.js";
import { DEFAULT_GIT_LIMITS, type GitLimits } from "./domain/limits.js";
import { keptLinkSites, LINK_SITES_CACHE_BYTES, linkSitesBytes } from "./domain/write-layout.js";
import { GIT_SERVICE_NAME, gitServiceImplementation } from "./grpc/git-service.js";
import { gitSyncConsumer, gitSyncConsumerName } from "./consumers/revision-events.js";
import { gitPollJob, gitSyncJob } from "./jobs/git-sync-jobs.js";
import type { ContentDeps, GitDeps, RevisionDeps } from "../deps.js";

/**
 * Git sync ("docs as code"): import from and export to Git repositories in GitBook's Git Sync
 * layout, through the `git` binary in temporary repositories (network guarded by the runtime's safe-fetch),
 * writing through the revision store's draft path. See docs/git.md.
 */

export { GIT_SERVICE_NAME, gitEntities, DEFAULT_GIT_LIMITS, type GitLimits };
export { importGitRepository } from "./use-cases/import-git-repository.js";
export { exportToGitRepository } from "./use-cases/export-to-git-repository.js";
export { findSync } from "./use-cases/shared/sync-state.js";
export { gitSyncToProto } from "./grpc/mappers.js";
export type { GitSync } from "./domain/git-sync.js";
export type { GitDeps };

/** Git's deps from the content service's: the fetch policy (private addresses and http only with IMPRINT_ALLOW_PRIVATE_FETCH) and the limits from the settings. */
export function gitDeps(deps: ContentDeps, revision: RevisionDeps): GitDeps {
  const config = deps.config;
  return {
    ...revision,
    fetchPolicy: safeFetchPolicy({
      allowPrivateAddresses: config.IMPRINT_ALLOW_PRIVATE_FETCH,
      service: "content",
      dnsServers: config.IMPRINT_FETCH_DNS_SERVERS,
    }),
    allowHttp: config.IMPRINT_ALLOW_PRIVATE_FETCH,
    gitBinary: config.GIT_BINARY,
    secrets: new SecretBox(config.GIT_SECRETS_KEY),
    publicUrl: config.IMPRINT_PUBLIC_URL,
    jobs: deps.jobs,
    identity: deps.identity,
    sync: { retryBaseMs: config.GIT_SYNC_RETRY_MS, maxAttempts: config.GIT_SYNC_MAX_ATTEMPTS, pollIntervalMs: config.GIT_SYNC_POLL_INTERVAL_MS },
    linkSites: keptLinkSites(new CachedLoader({ name: "git link sites", maxBytes: LINK_SITES_CACHE_BYTES, bytes: linkSitesBytes })),
    limits: {
      maxRepositoryBytes: config.GIT_MAX_REPOSITORY_BYTES,
      maxFiles: config.GIT_MAX_FILES,
      maxFileBytes: config.GIT_MAX_FILE_BYTES,
      maxPages: config.GIT_MAX_PAGES,
      maxMarkdownBytes: config.GIT_MAX_MARKDOWN_BYTES,
      maxDurationMs: config.GIT_MAX_DURATION_MS,
    },
  };
}

/** The gRPC service of Git sync (GitService). */
export function gitGrpcServices(orm: MikroORM, git: GitDeps): ServiceRegistration[] {
  return [{ name: GIT_SERVICE_NAME, definition: GitServiceService, implementation: gitServiceImplementation(orm, git) }];
}

/** The Git sync jobs: queued imports, and the poll of connected repositories when GIT_SYNC_POLL_INTERVAL_MS is set. */
export function gitJobs(orm: MikroORM, git: GitDeps): JobSpec[] {
  return git.sync.pollIntervalMs > 0 ? [gitSyncJob(orm, git), gitPollJob(orm, git)] : [gitSyncJob(orm, git)];
}

/** Git Sync's consumer of content's own revision events: head moves of connected spaces queue exports. */
export function gitConsumers(git: GitDeps, config: Pick<ContentDeps["config"], "DATABASE_URL">): ConsumerSpec[] {
  return [gitSyncConsumer(git, gitSyncConsumerName(config.DATABASE_URL))];
}

/** What the other modules use. */
export { purgeGitState } from "./use-cases/shared/sync-state.js";
export { publishedGitSourceOf, spaceGitSyncOf } from "./grpc/space-git-sync.js";
