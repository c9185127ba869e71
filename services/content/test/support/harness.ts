import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { createLogger, type PromiseClient, type RunningService } from "@imprint/runtime";
import { createTestDatabase, testClient, testNatsUrl } from "@imprint/runtime/testing";
import { loadContentConfig } from "../../src/config.js";
import { startContentService } from "../../src/service.js";

declare module "vitest" {
  // Provided by the runtime's global setup (services/runtime/src/testing/global-setup.ts).
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export type IdentityClient = PromiseClient<typeof IdentityServiceService>;
export type SpaceClient = PromiseClient<typeof SpaceServiceService>;
export type CollectionClient = PromiseClient<typeof CollectionServiceService>;

/** Real time plus an offset the test moves forward (e.g. to day 8 after a deletion). */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  advanceDays(days: number): void {
    this.advance(days * 24 * 60 * 60 * 1000);
  }
}

export const quietLogger = createLogger("content-test", { level: "error", write: () => {} });

export interface ContentHarness {
  identity: IdentityClient;
  spaces: SpaceClient;
  collections: CollectionClient;
  /** The content service's clock (identity runs on real time). */
  clock: TestClock;
  content: RunningService;
  identityService: RunningService;
  /** The content service's address, for clients of the other content services (revisions, import). */
  contentAddress: string;
  /** The content service's data directory (blobs, file-URL key); removed at stop. */
  dataDir: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Identity and content, each on a fresh database, on the shared PostgreSQL and this test file's nats-server, with
 * clients. Each harness has its own durable consumer of identity's member events, so harnesses
 * of parallel test files never take each other's events.
 */
export async function startContentHarness(options: { contentEnv?: Record<string, string> } = {}): Promise<ContentHarness> {
  const natsUrl = await testNatsUrl();
  const identityDatabaseUrl = await createTestDatabase(inject("pgAdminUrl"), "identity");
  const identityService = await startIdentityService(
    loadIdentityConfig({ DATABASE_URL: identityDatabaseUrl, NATS_URL: natsUrl, GRPC_PORT: "0", LOG_LEVEL: "error", SHUTDOWN_GRACE_MS: "1000" }),
    { logger: quietLogger },
  );
  const dataDir = await mkdtemp(join(tmpdir(), "imprint-content-"));
  const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
  const clock = new TestClock();
  let content: RunningService;
  try {
    content = await startContentService(
      loadContentConfig({
        DATABASE_URL: databaseUrl,
        NATS_URL: natsUrl,
        GRPC_PORT: "0",
        LOG_LEVEL: "error",
        SHUTDOWN_GRACE_MS: "1000",
        IDENTITY_GRPC_ADDRESS: identityService.address,
        IMPRINT_DATA_DIR: dataDir,
        MEMBERSHIP_EVENTS_CONSUMER: `content-identity-members-${randomUUID().slice(0, 8)}`,
        COUNTERS_EVENTS_CONSUMER: `content-collaboration-counters-${randomUUID().slice(0, 8)}`,
        ...options.contentEnv,
      }),
      { clock: clock.now, logger: quietLogger },
    );
  } catch (error) {
    await identityService.stop();
    throw error;
  }
  const identity = testClient(IdentityServiceService, identityService.address);
  const spaces = testClient(SpaceServiceService, content.address);
  const collections = testClient(CollectionServiceService, content.address);
  return {
    identity,
    spaces,
    collections,
    clock,
    content,
    identityService,
    contentAddress: content.address,
    dataDir,
    databaseUrl,
    stop: async () => {
      identity.close();
      spaces.close();
      collections.close();
      await content.stop();
      await identityService.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
