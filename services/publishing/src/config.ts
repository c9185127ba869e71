import { z } from "zod";
import { env, loadConfig, serviceConfigShape } from "@imprint/runtime";

/** The shared service settings plus the upstreams publishing asks about organizations and spaces, and its consumer of content's events. */
export const publishingConfigShape = {
  ...serviceConfigShape,
  /** Identity's gRPC address: the caller's role in a site's organization. */
  IDENTITY_GRPC_ADDRESS: env.grpcAddress(),
  /** Content's gRPC address: the spaces sites publish (existence, organization, the caller's rights). */
  CONTENT_GRPC_ADDRESS: env.grpcAddress(),
  /** Durable consumer of content's space events (deleted, restored, purged, transferred). One per deployment; tests give each instance its own. */
  SPACE_EVENTS_CONSUMER: env.consumerName("publishing-content-spaces"),
  /** Durable consumer of content's `collection.transferred` (the spaces it moved leave their former organization's sites). */
  COLLECTION_EVENTS_CONSUMER: env.consumerName("publishing-content-collections"),
  /** Durable consumer of content's `revision.created` (a page moved in a published space leaves a redirect from its old path). */
  REVISION_EVENTS_CONSUMER: env.consumerName("publishing-content-revisions"),
  /**
   * How long a caller's organization role is reused without asking identity again. Identity's member
   * events drop an entry at once; the TTL bounds staleness when an event reaches another replica.
   */
  MEMBERSHIP_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /** Durable consumer of identity's member events (one per deployment; tests give each instance its own). */
  MEMBERSHIP_EVENTS_CONSUMER: env.consumerName("publishing-identity-members"),
  /** Durable consumer of identity's team events that keeps who is in which team, for sites' team grants (one per deployment; tests give each instance its own). */
  TEAMS_EVENTS_CONSUMER: env.consumerName("publishing-identity-teams"),
  /** How often publishing makes its copy of who is in which team equal to identity's (a lost event is repaired). */
  TEAM_RECONCILE_INTERVAL_MS: env.positiveInt(60 * 60 * 1000),
};

export type PublishingConfig = z.infer<z.ZodObject<typeof publishingConfigShape>>;

export function loadPublishingConfig(environment: Record<string, string | undefined> = process.env): PublishingConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(publishingConfigShape, present);
}
