import { z } from "zod";
import { env, loadConfig, serviceConfigShape } from "@imprint/runtime";

/** The shared service settings plus the upstreams and the durable consumers of content's events. */
export const collaborationConfigShape = {
  ...serviceConfigShape,
  /** Identity's gRPC address: users (authors, resolvers, reactions) and members (commenters). */
  IDENTITY_GRPC_ADDRESS: env.grpcAddress(),
  /** Content's gRPC address: rights on spaces, branches of change requests, pages comments point at. */
  CONTENT_GRPC_ADDRESS: env.grpcAddress(),
  /** Durable consumer of content's space events (purge, transfer). One per deployment; tests give each instance its own. */
  SPACE_EVENTS_CONSUMER: env.consumerName("collaboration-content-spaces"),
  /** Durable consumer of content's `collection.transferred` (the spaces it moved move along). */
  COLLECTION_EVENTS_CONSUMER: env.consumerName("collaboration-content-collections"),
  /** Durable consumer of content's branch events (a merge content finished before this service recorded it). */
  BRANCH_EVENTS_CONSUMER: env.consumerName("collaboration-content-branches"),
  /**
   * Pause between rounds of the merge resumer while merges an interruption left pending wait to be
   * settled (finished when content merged, dropped when it did not); 10 times longer when none are.
   */
  MERGE_RESUME_INTERVAL_MS: env.positiveInt(1_000),
  /** Durable consumer of content's revision events (commits on a change request make their authors contributors). */
  REVISION_EVENTS_CONSUMER: env.consumerName("collaboration-content-revisions"),
  /** Durable consumer of content's `git_sync.conflict_kept` (opens the change request keeping the overruled side). */
  GIT_SYNC_EVENTS_CONSUMER: env.consumerName("collaboration-content-git-sync"),
};

export type CollaborationConfig = z.infer<z.ZodObject<typeof collaborationConfigShape>>;

export function loadCollaborationConfig(environment: Record<string, string | undefined> = process.env): CollaborationConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(collaborationConfigShape, present);
}
