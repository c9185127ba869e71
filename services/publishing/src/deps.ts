import type { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import type { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { SearchServiceService } from "@imprint/proto/content/v1/search";
import type { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import type { Clock, IdentityClients, MembershipCache, PromiseClient, ServiceDeps, UnitOfWork } from "@imprint/runtime";
import type { PublishingConfig } from "./config.js";

/**
 * What publishing's use cases receive besides their EntityManager, built once per service in
 * service.ts. A leaf: types only, so use cases, domain, consumers and transports can all import it.
 */
export interface UseCaseDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
  /** Identity: the caller's role (through `memberships`) and, for member tokens, who they are. */
  identity: IdentityClients;
  /** The caller's role in an organization (identity's GetMembership, cached; member events drop entries). */
  memberships: MembershipCache;
  /** The spaces sites publish: GetSpace answers the space, its organization and the caller's rights. */
  spaces: PromiseClient<typeof SpaceServiceService>;
  /** Pages of spaces (by id and by path, as the caller sees them): the pages redirects lead to. */
  revisions: PromiseClient<typeof RevisionServiceService>;
  /** Published spaces' page trees at a revision (no caller): what moved between a revision and its parent. */
  published: PromiseClient<typeof PublishedContentServiceService>;
  /** Content's search: a site's search as the caller (the site's spaces they can read); a site's spaces' index brought current (no caller). */
  search: PromiseClient<typeof SearchServiceService>;
}

/** The runtime's service deps with publishing's own and its config (exported for hosting code and tests). */
export interface PublishingDeps extends ServiceDeps, UseCaseDeps {
  config: PublishingConfig;
}

export type { CallerInput } from "@imprint/runtime";
