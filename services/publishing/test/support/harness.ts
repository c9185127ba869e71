import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import type { PromiseClient, RunningService } from "@imprint/runtime";
import { publishingClients, startServices, testClient, TestClock, testLogger, type PublishingClients, type ServiceClients } from "@imprint/runtime/testing";
import { loadPublishingConfig } from "../../src/config.js";
import { startPublishingService } from "../../src/service.js";

/** The publishing service's API: a client of each of its services (`sites`, `siteSpaces`, `shareLinks`, …). */
export interface PublishingHarness extends Pick<ServiceClients, "identity" | "spaces" | "collections" | "editing">, PublishingClients {
  /** The content service's clock (e.g. to reach the purge of a deleted space). */
  contentClock: TestClock;
  publishing: RunningService;
  /** The content service (its database holds the projection of the published addresses). */
  content: RunningService;
  publishingAddress: string;
  /** Content's published reads (no caller), as publishing's page-move consumer reads them. */
  published: PromiseClient<typeof PublishedContentServiceService>;
  stop(): Promise<void>;
}

/**
 * Identity, content and publishing through the test kit, with clients. Publishing's clock never
 * repeats a millisecond, so its "oldest first" lists have a definite order.
 */
export async function startPublishingHarness(): Promise<PublishingHarness> {
  const contentClock = new TestClock();
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService, clock: contentClock.now },
    {
      name: "publishing",
      config: loadPublishingConfig,
      start: startPublishingService,
      clock: new TestClock({ distinct: true }).now,
      logger: testLogger("publishing", { stderr: true }),
      // Roles are kept until identity's member events drop them: what the tests see follows the events.
      env: { MEMBERSHIP_CACHE_TTL_MS: String(10 * 60 * 1000) },
    },
  ]);
  const publishing = publishingClients(services.address("publishing"));
  return {
    ...publishing.clients,
    identity: services.clients.identity,
    spaces: services.clients.spaces,
    collections: services.clients.collections,
    editing: services.clients.editing,
    contentClock,
    publishing: services.service("publishing"),
    content: services.service("content"),
    publishingAddress: services.address("publishing"),
    published: testClient(PublishedContentServiceService, services.address("content")),
    stop: async () => {
      publishing.close();
      await services.stop();
    },
  };
}
