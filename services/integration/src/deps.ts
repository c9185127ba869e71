import type { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import type { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import type {
  Clock,
  IdentityClients,
  JobControl,
  Logger,
  MembershipCache,
  PromiseClient,
  SafeFetchPolicy,
  SecretBox,
  ServiceDeps,
  UnitOfWork,
} from "@imprint/runtime";
import type { IntegrationConfig } from "./config.js";
import type { InstallationTokens } from "./delivery/installation-tokens.js";
import type { RenderLookups } from "./delivery/render-lookups.js";
import type { ScriptCalls } from "./delivery/script-calls.js";
import type { SpaceReads } from "./upstreams/space-reads.js";

/**
 * What the integration context's use cases receive besides their EntityManager, built once per
 * service in service.ts. A leaf: types only.
 */
export interface UseCaseDeps {
  clock: Clock;
  /** For what a use case does after its transaction and may only report (e.g. a token revocation that failed). */
  logger: Logger;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
  /** Wakes the delivery job when events were recorded. */
  jobs: JobControl;
  /** Identity: organizations (by hostname), users (events' `updatedBy`), installation tokens. */
  identity: IdentityClients;
  /** The caller's role in an organization (identity's GetMembership, cached). */
  memberships: MembershipCache;
  /** Content's spaces: where a space installation goes, and a render's space. */
  spaces: PromiseClient<typeof SpaceServiceService>;
  /** Which organization a space a caller can read belongs to (GetSpace, kept briefly): where a render happens. */
  spaceReads: SpaceReads;
  /** Publishing's sites: where a site installation goes. */
  sites: PromiseClient<typeof SiteServiceService>;
  /** Opens and seals integrations' secrets. */
  secrets: SecretBox;
  /** The SSRF guard's policy for scripts' fetches and development tunnels: a tunnel is checked against it when it is set, and at each call. */
  fetchPolicy: SafeFetchPolicy;
  /** Calls an integration's script (sandbox or development tunnel). */
  scripts: ScriptCalls;
  /** Installation tokens for scripts' environments, reused while fresh. */
  tokens: InstallationTokens;
  /** What renders look up (integration, installation, space and site installations), kept while integration's events are heard; every change drops its integration's after its commit. */
  renderLookups: RenderLookups;
  settings: IntegrationSettings;
}

/** The settings use cases read. */
export interface IntegrationSettings {
  /** The public API's base URL (no trailing slash). */
  publicUrl: string;
  tokenTtlSeconds: number;
  deliveryAttempts: number;
  deliveryBackoffMs: number;
  deliveryConcurrency: number;
}

/** The runtime's service deps with integration's own and its config (exported for hosting code and tests). */
export interface IntegrationDeps extends ServiceDeps, UseCaseDeps {
  config: IntegrationConfig;
}

export type { CallerInput } from "@imprint/runtime";
