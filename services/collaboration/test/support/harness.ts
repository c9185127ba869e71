import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { createLogger, type PromiseClient, type RunningService } from "@imprint/runtime";
import { createTestDatabase, testClient, testNatsUrl } from "@imprint/runtime/testing";
import { loadCollaborationConfig } from "../../src/config.js";
import { startCollaborationService } from "../../src/service.js";

declare module "vitest" {
  // Provided by the runtime's global setup (services/runtime/src/testing/global-setup.ts).
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** Real time plus an offset a test moves forward (content's clock: e.g. to the purge of a deleted space). */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advanceDays(days: number): void {
    this.offsetMs += days * 24 * 60 * 60 * 1000;
  }
}

/** Real time that never answers the same millisecond twice, so "newest first" lists have a definite order. */
export function tickingClock(): () => Date {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last);
  };
}

export const quietLogger = createLogger("collaboration-test", { level: "error", write: () => {} });

export interface CollaborationHarness {
  identity: PromiseClient<typeof IdentityServiceService>;
  spaces: PromiseClient<typeof SpaceServiceService>;
  editing: PromiseClient<typeof EditingServiceService>;
  revisions: PromiseClient<typeof RevisionServiceService>;
  branches: PromiseClient<typeof BranchServiceService>;
  changeRequests: PromiseClient<typeof ChangeRequestServiceService>;
  comments: PromiseClient<typeof CommentServiceService>;
  /** The content service's clock. */
  contentClock: TestClock;
  collaboration: RunningService;
  stop(): Promise<void>;
}

/**
 * Identity, content and collaboration, each on a fresh database, on the shared PostgreSQL and
 * nats-server, with clients. Every durable consumer gets a name of its own, so harnesses of
 * parallel test files never take each other's events.
 */
export async function startCollaborationHarness(): Promise<CollaborationHarness> {
  const natsUrl = await testNatsUrl();
  const suffix = randomUUID().slice(0, 8);
  const base = { NATS_URL: natsUrl, GRPC_PORT: "0", LOG_LEVEL: "error", SHUTDOWN_GRACE_MS: "1000" };
  const running: RunningService[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), "imprint-collaboration-"));
  const contentClock = new TestClock();
  const stopAll = async () => {
    for (const service of running.reverse()) await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const identityService = await startIdentityService(
      loadIdentityConfig({ ...base, DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "identity") }),
      { logger: quietLogger },
    );
    running.push(identityService);
    const contentService = await startContentService(
      loadContentConfig({
        ...base,
        DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "content"),
        IDENTITY_GRPC_ADDRESS: identityService.address,
        IMPRINT_DATA_DIR: dataDir,
        MEMBERSHIP_EVENTS_CONSUMER: `content-identity-members-${suffix}`,
        COUNTERS_EVENTS_CONSUMER: `content-collaboration-counters-${suffix}`,
      }),
      { clock: contentClock.now, logger: quietLogger },
    );
    running.push(contentService);
    const collaboration = await startCollaborationService(
      loadCollaborationConfig({
        ...base,
        DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "collaboration"),
        IDENTITY_GRPC_ADDRESS: identityService.address,
        CONTENT_GRPC_ADDRESS: contentService.address,
        SPACE_EVENTS_CONSUMER: `collaboration-content-spaces-${suffix}`,
        BRANCH_EVENTS_CONSUMER: `collaboration-content-branches-${suffix}`,
        REVISION_EVENTS_CONSUMER: `collaboration-content-revisions-${suffix}`,
      }),
      { clock: tickingClock(), logger: quietLogger },
    );
    running.push(collaboration);
    const clients = {
      identity: testClient(IdentityServiceService, identityService.address),
      spaces: testClient(SpaceServiceService, contentService.address),
      editing: testClient(EditingServiceService, contentService.address),
      revisions: testClient(RevisionServiceService, contentService.address),
      branches: testClient(BranchServiceService, contentService.address),
      changeRequests: testClient(ChangeRequestServiceService, collaboration.address),
      comments: testClient(CommentServiceService, collaboration.address),
    };
    return {
      ...clients,
      contentClock,
      collaboration,
      stop: async () => {
        for (const client of Object.values(clients)) client.close();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
