import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCollaborationConfig, startCollaborationService } from "@imprint/collaboration";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { createLogger, type Logger, type PromiseClient } from "@imprint/runtime";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { createTestDatabase, patient, testClient, testNatsUrl } from "@imprint/runtime/testing";
import { inject } from "vitest";
import { loadGatewayConfig, startGateway, type GatewayHandle } from "../../src/index.js";

declare module "vitest" {
  // Provided by the runtime's global setup (services/runtime/src/testing/global-setup.ts).
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/**
 * A real stack for end-to-end tests: each upstream service in-process on its own fresh database,
 * the shared PostgreSQL from the global setup and this test file's nats-server, and the gateway in front on a free
 * port. One stack per test file (beforeAll/afterAll); tests create their own organizations.
 *
 * Adding a service later: one entry in UPSTREAM_STARTERS (its start function and the gateway
 * variable that receives its address), plus its admin client below if tests need one. Starters
 * run in order and see the addresses of those before them.
 */
interface RunningUpstream {
  address: string;
  stop(): Promise<void>;
}

/** Real time plus an offset a test moves forward; the content service runs on it. */
export class StackClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advanceDays(days: number): void {
    this.offsetMs += days * 24 * 60 * 60 * 1000;
  }
}

interface StarterContext {
  logger: Logger;
  /** Addresses of the upstreams started before, by address variable (e.g. IDENTITY_GRPC_ADDRESS). */
  addresses: Record<string, string>;
  /** The gateway's base URL (its port is reserved before the upstreams start). */
  publicUrl: string;
  clock: StackClock;
  /** Runs at stop, after the upstreams stopped. */
  onStop: (cleanup: () => Promise<void>) => void;
}

const UPSTREAM_STARTERS: Record<string, { addressVariable: string; start: (context: StarterContext) => Promise<RunningUpstream> }> = {
  identity: {
    addressVariable: "IDENTITY_GRPC_ADDRESS",
    start: async ({ logger }) => {
      const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "identity");
      const config = loadIdentityConfig({ GRPC_HOST: "127.0.0.1", GRPC_PORT: "0", DATABASE_URL: databaseUrl, NATS_URL: await testNatsUrl() });
      return startIdentityService(config, { logger });
    },
  },
  content: {
    addressVariable: "CONTENT_GRPC_ADDRESS",
    start: async ({ logger, addresses, publicUrl, clock, onStop }) => {
      const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
      const dataDir = await mkdtemp(join(tmpdir(), "imprint-stack-content-"));
      onStop(() => rm(dataDir, { recursive: true, force: true }));
      const config = loadContentConfig({
        GRPC_HOST: "127.0.0.1",
        GRPC_PORT: "0",
        DATABASE_URL: databaseUrl,
        NATS_URL: await testNatsUrl(),
        IDENTITY_GRPC_ADDRESS: addresses.IDENTITY_GRPC_ADDRESS,
        IMPRINT_DATA_DIR: dataDir,
        IMPRINT_PUBLIC_URL: publicUrl,
        // Tests serve sites to import from loopback.
        IMPRINT_ALLOW_PRIVATE_FETCH: "true",
        // Each stack consumes identity's member events on its own, so parallel test files never share them.
        MEMBERSHIP_EVENTS_CONSUMER: `content-identity-members-${randomUUID().slice(0, 8)}`,
        COUNTERS_EVENTS_CONSUMER: `content-collaboration-counters-${randomUUID().slice(0, 8)}`,
      });
      return startContentService(config, { logger, clock: clock.now });
    },
  },
  collaboration: {
    addressVariable: "COLLABORATION_GRPC_ADDRESS",
    start: async ({ logger, addresses, clock }) => {
      const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "collaboration");
      const suffix = randomUUID().slice(0, 8);
      const config = loadCollaborationConfig({
        GRPC_HOST: "127.0.0.1",
        GRPC_PORT: "0",
        DATABASE_URL: databaseUrl,
        NATS_URL: await testNatsUrl(),
        IDENTITY_GRPC_ADDRESS: addresses.IDENTITY_GRPC_ADDRESS,
        CONTENT_GRPC_ADDRESS: addresses.CONTENT_GRPC_ADDRESS,
        // Each stack consumes content's events on its own, so parallel test files never share them.
        SPACE_EVENTS_CONSUMER: `collaboration-content-spaces-${suffix}`,
        BRANCH_EVENTS_CONSUMER: `collaboration-content-branches-${suffix}`,
        REVISION_EVENTS_CONSUMER: `collaboration-content-revisions-${suffix}`,
      });
      return startCollaborationService(config, { logger, clock: clock.now });
    },
  },
};

export interface TestStack {
  /** Gateway base URL, e.g. http://127.0.0.1:43121 (paths start with /v1). */
  baseUrl: string;
  /** Admin client of the identity service, for test setup (CreateOrganization, IssueToken, ...). */
  identity: PromiseClient<typeof IdentityServiceService>;
  /** The content service's gRPC address (for its internal APIs, e.g. editing, in test setup). */
  contentAddress: string;
  /** The content service's clock (e.g. to reach the day after a deleted space's retention). */
  clock: StackClock;
  /** Log lines written by the gateway, parsed. */
  gatewayLogs: Record<string, unknown>[];
  /** Stops one upstream while the gateway keeps running (to test outages). */
  stopUpstream(name: keyof typeof UPSTREAM_STARTERS): Promise<void>;
  stop(): Promise<void>;
}

function captureLogger(service: string, sink?: Record<string, unknown>[]): Logger {
  return createLogger(service, {
    level: sink ? "info" : "error",
    write: (line) => {
      if (sink) sink.push(JSON.parse(line) as Record<string, unknown>);
      else process.stderr.write(line + "\n");
    },
  });
}

export async function startStack(options: { gatewayEnv?: Record<string, string> } = {}): Promise<TestStack> {
  const upstreams = new Map<string, RunningUpstream>();
  let gateway: GatewayHandle | undefined;
  const gatewayLogs: Record<string, unknown>[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const clock = new StackClock();
  const stopAll = async () => {
    await gateway?.stop();
    await Promise.allSettled([...upstreams.values()].map((u) => u.stop()));
    upstreams.clear();
    await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
  };
  try {
    // The gateway's port is chosen first: upstreams build public URLs (e.g. signed file URLs) on it.
    const port = await getFreePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    // Upstream deadlines scaled like every other wait of the tests: a busy CI machine is slow, not broken.
    const env: Record<string, string> = { IMPRINT_HOST: "127.0.0.1", IMPRINT_PORT: String(port), SHUTDOWN_GRACE_MS: "1000", UPSTREAM_TIMEOUT_MS: String(patient(10_000)) };
    for (const [name, starter] of Object.entries(UPSTREAM_STARTERS)) {
      const running = await starter.start({ logger: captureLogger(name), addresses: { ...env }, publicUrl, clock, onStop: (cleanup) => cleanups.push(cleanup) });
      upstreams.set(name, running);
      env[starter.addressVariable] = running.address;
    }
    gateway = await startGateway(loadGatewayConfig({ ...env, ...options.gatewayEnv }), {
      logger: captureLogger("gateway", gatewayLogs),
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
  const identity = testClient(IdentityServiceService, upstreams.get("identity")!.address);
  return {
    baseUrl: gateway.url,
    identity,
    contentAddress: upstreams.get("content")!.address,
    clock,
    gatewayLogs,
    stopUpstream: async (name) => {
      await upstreams.get(name)?.stop();
      upstreams.delete(name);
    },
    stop: async () => {
      identity.close();
      await stopAll();
    },
  };
}
