import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { ChangeRequestReviewServiceService } from "@imprint/proto/collaboration/v1/reviews";
import type { PromiseClient, RunningService } from "@imprint/runtime";
import { startServices, testClient, TestClock, type ServiceClients } from "@imprint/runtime/testing";
import { loadCollaborationConfig } from "../../src/config.js";
import { startCollaborationService } from "../../src/service.js";

export interface CollaborationHarness extends Omit<ServiceClients, "publishing"> {
  /** The content service's clock (e.g. to reach the purge of a deleted space). */
  contentClock: TestClock;
  collaboration: RunningService;
  /** The content service (its database holds the projection of the counters). */
  content: RunningService;
  collaborationAddress: string;
  /** Collaboration's reviews service (the kit's clients predate it). */
  reviews: PromiseClient<typeof ChangeRequestReviewServiceService>;
  stop(): Promise<void>;
}

/**
 * Identity, content and collaboration through the test kit, with clients. Collaboration's clock
 * never repeats a millisecond, so its "newest first" lists have a definite order.
 */
export async function startCollaborationHarness(): Promise<CollaborationHarness> {
  const contentClock = new TestClock();
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService, clock: contentClock.now },
    { name: "collaboration", config: loadCollaborationConfig, start: startCollaborationService, clock: new TestClock({ distinct: true }).now },
  ]);
  const { clients } = services;
  const reviews = testClient(ChangeRequestReviewServiceService, services.address("collaboration"));
  return {
    identity: clients.identity,
    spaces: clients.spaces,
    collections: clients.collections,
    editing: clients.editing,
    revisions: clients.revisions,
    branches: clients.branches,
    changeRequests: clients.changeRequests,
    comments: clients.comments,
    contentClock,
    collaboration: services.service("collaboration"),
    content: services.service("content"),
    collaborationAddress: services.address("collaboration"),
    reviews,
    stop: () => {
      reviews.close();
      return services.stop();
    },
  };
}
