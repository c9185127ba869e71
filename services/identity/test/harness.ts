import { inject } from "vitest";
import { createLogger, type PromiseClient, type RunningService } from "@imprint/runtime";
import { createTestDatabase, testClient, testNatsUrl } from "@imprint/runtime/testing";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { loadIdentityConfig } from "../src/config.js";
import { startIdentityService } from "../src/service.js";

export type IdentityClient = PromiseClient<typeof IdentityServiceService>;

/** Real time plus an offset the test moves forward. */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface TestIdentity {
  running: RunningService;
  client: IdentityClient;
  clock: TestClock;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** The identity config for tests; `natsUrl` only matters to a service that starts (config checks need none). */
export function testConfig(databaseUrl: string, extraEnv: Record<string, string> = {}, natsUrl = "nats://127.0.0.1:4222") {
  return loadIdentityConfig({
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    GRPC_PORT: "0",
    LOG_LEVEL: "error",
    SHUTDOWN_GRACE_MS: "1000",
    ...extraEnv,
  });
}

export const quietLogger = createLogger("identity-test", { level: "error", write: () => {} });

/** The identity service on a fresh database and this test file's nats-server, with a client. */
export async function startTestIdentity(options: { extraEnv?: Record<string, string>; databaseUrl?: string } = {}): Promise<TestIdentity> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase(inject("pgAdminUrl"), "identity"));
  const clock = new TestClock();
  const running = await startIdentityService(testConfig(databaseUrl, options.extraEnv, await testNatsUrl()), { clock: clock.now, logger: quietLogger });
  const client = testClient(IdentityServiceService, running.address);
  return {
    running,
    client,
    clock,
    databaseUrl,
    stop: async () => {
      client.close();
      await running.stop();
    },
  };
}
