import type { BranchServiceService } from "@imprint/proto/content/v1/branches";
import type { EditingServiceService } from "@imprint/proto/content/v1/editing";
import type { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import type { Clock, IdentityClients, PromiseClient, ServiceDeps, UnitOfWork } from "@imprint/runtime";
import type { CollaborationConfig } from "./config.js";

/** The content service's APIs this context calls. */
export interface ContentClients {
  /** Rights on spaces (GetSpace answers the caller's permissions). */
  spaces: PromiseClient<typeof SpaceServiceService>;
  /** The branches holding change requests' content. */
  branches: PromiseClient<typeof BranchServiceService>;
  /** Pages comments point at. */
  revisions: PromiseClient<typeof RevisionServiceService>;
  /** Content changes applied to a change request's branch. */
  editing: PromiseClient<typeof EditingServiceService>;
}

/**
 * What collaboration's use cases receive besides their EntityManager, built once per service in
 * service.ts. A leaf: types only, so use cases, domain, consumers and transports can all import it.
 */
export interface UseCaseDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
  content: ContentClients;
  /** Users and members, to show who did what. */
  identity: IdentityClients;
  /** The merge resumer (jobs/merge-resumer.ts): a merge call was interrupted, settle it soon. */
  merges: { wake(): void };
}

/** The runtime's service deps with collaboration's own and its config (exported for hosting code and tests). */
export interface CollaborationDeps extends ServiceDeps, UseCaseDeps {
  config: CollaborationConfig;
}

export type { CallerInput } from "@imprint/runtime";
