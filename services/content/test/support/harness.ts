import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import type { RunningService } from "@imprint/runtime";
import { startServices, TestClock, type ServiceClients } from "@imprint/runtime/testing";
import { loadContentConfig } from "../../src/config.js";
import { startContentService } from "../../src/service.js";

export interface ContentHarness {
  identity: ServiceClients["identity"];
  spaces: ServiceClients["spaces"];
  collections: ServiceClients["collections"];
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

/** Identity and content (with `contentEnv`), through the test kit, with clients. */
export async function startContentHarness(options: { contentEnv?: Record<string, string> } = {}): Promise<ContentHarness> {
  const clock = new TestClock();
  const services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService, clock: clock.now, env: options.contentEnv },
  ]);
  return {
    identity: services.clients.identity,
    spaces: services.clients.spaces,
    collections: services.clients.collections,
    clock,
    content: services.service("content"),
    identityService: services.service("identity"),
    contentAddress: services.address("content"),
    dataDir: services.dataDir("content"),
    databaseUrl: services.databaseUrl("content"),
    stop: services.stop,
  };
}
