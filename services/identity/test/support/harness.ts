import type { IdentityClients, RunningService } from "@imprint/runtime";
import { startServices, TEST_SERVICE_ENV, TestClock, type ServiceClients } from "@imprint/runtime/testing";
import { loadIdentityConfig } from "../../src/config.js";
import { startIdentityService } from "../../src/service.js";

export interface TestIdentity {
  running: RunningService;
  client: IdentityClients;
  /** What the kit's factories take (only identity's clients answer here). */
  clients: ServiceClients;
  clock: TestClock;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** The identity config for tests, for checks that start nothing. */
export function testConfig(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  return loadIdentityConfig({ ...TEST_SERVICE_ENV, DATABASE_URL: databaseUrl, NATS_URL: "nats://127.0.0.1:4222", ...extraEnv });
}

/** The identity service, on a fresh database (or `databaseUrl`: a restart, a replica) and this test file's nats-server. */
export async function startTestIdentity(options: { extraEnv?: Record<string, string>; databaseUrl?: string } = {}): Promise<TestIdentity> {
  const clock = new TestClock();
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService, clock: clock.now, env: options.extraEnv, database: options.databaseUrl },
  ]);
  return {
    running: services.service("identity"),
    client: services.clients.identity,
    clients: services.clients,
    clock,
    databaseUrl: services.databaseUrl("identity"),
    stop: services.stop,
  };
}
