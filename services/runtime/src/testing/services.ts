import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { CoHostedServices } from "../grpc/co-hosted.js";
import type { Logger } from "../logger.js";
import type { Clock, RunningService } from "../service.js";
import { serviceClients, type ServiceClients } from "./clients.js";
import { testLogger } from "./logger.js";
import { testNatsUrl } from "./nats.js";
import "./provided-context.js";
import { createTestDatabase } from "./support.js";

export type TestEnv = Record<string, string | undefined>;

/** Settings every service gets in tests: loopback, a free port, quiet, quick to stop. */
export const TEST_SERVICE_ENV: Readonly<Record<string, string>> = {
  GRPC_HOST: "127.0.0.1",
  GRPC_PORT: "0",
  LOG_LEVEL: "error",
  SHUTDOWN_GRACE_MS: "1000",
  // Processes a test signals stop at once (a drain is tested on its own).
  SHUTDOWN_DRAIN_MS: "0",
};

/** What a target's start function answers: a service's RunningService, the gateway's handle. */
export interface StartedTarget {
  /** Its gRPC address (services). */
  address?: string;
  /** Its HTTP base URL (the gateway). */
  url?: string;
  stop(): Promise<void>;
}

/** One process the kit starts: a service (or the gateway), from its own config loader and start function. */
export interface TestTarget<Config> {
  /**
   * e.g. "content": names its database, its log lines, and the variable that hands its address to
   * the targets after it (CONTENT_GRPC_ADDRESS).
   */
  name: string;
  /** Reads its settings (e.g. loadContentConfig) from the kit's environment plus `env`. */
  config: (env: TestEnv) => Config;
  /** e.g. startContentService. */
  start: (config: Config, options: { clock?: Clock; logger?: Logger; coHosted?: CoHostedServices }) => Promise<StartedTarget>;
  /** Settings of its own; they win over the kit's. */
  env?: Record<string, string>;
  /** Its clock (e.g. a TestClock's `now`); real time by default. */
  clock?: Clock;
  /** Its logger; by default a quiet one (testLogger). */
  logger?: Logger;
  /**
   * Its database: a fresh one on the shared PostgreSQL (the default), the URL of an existing one
   * (a restart, a second replica), or none (false: the gateway, which gets no data directory either).
   */
  database?: string | false;
}

/** Started targets; its functions are closures (hand them around unbound, e.g. `afterAll(services.stop)`). */
export interface TestServices {
  /** Clients of the started services, opened on first use, closed at stop. */
  readonly clients: ServiceClients;
  /** A started service, for what tests reach past its API (its ORM, NATS connection, relay). */
  readonly service: (name: string) => RunningService;
  /** The gRPC address of a started target. */
  readonly address: (name: string) => string;
  /** The HTTP base URL of a started target (the gateway). */
  readonly url: (name: string) => string;
  readonly databaseUrl: (name: string) => string;
  /** Its IMPRINT_DATA_DIR: a fresh directory, removed at stop. */
  readonly dataDir: (name: string) => string;
  /** Stops one target while the others keep running (e.g. an upstream outage). */
  readonly stopTarget: (name: string) => Promise<void>;
  /** Stops every target, the last started first, then removes their data directories; once. */
  readonly stop: () => Promise<void>;
}

interface Entry {
  name: string;
  databaseUrl?: string;
  dataDir?: string;
  started?: StartedTarget;
  stopped: boolean;
}

/** `<NAME>_GRPC_ADDRESS`, the variable that gives a target's address to those that call it. */
export function addressVariable(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_GRPC_ADDRESS`;
}

function isRunningService(started: StartedTarget): started is RunningService {
  return "orm" in started && "nats" in started && "relay" in started;
}

/**
 * The config of a target whose durable consumers (the settings named *_CONSUMER) get names of
 * their own: two instances on this file's nats-server (a second harness, a restart) must never
 * share a consumer, or each would see only part of the events.
 */
function withOwnConsumers<Config>(target: TestTarget<Config>, env: TestEnv): Config {
  const config = target.config(env);
  if (typeof config !== "object" || config === null) return config;
  const suffix = randomUUID().slice(0, 8);
  const renamed: TestEnv = {};
  for (const [key, value] of Object.entries(config)) {
    if (key.endsWith("_CONSUMER") && typeof value === "string" && target.env?.[key] === undefined) renamed[key] = `${value}-${suffix}`;
  }
  return Object.keys(renamed).length === 0 ? config : target.config({ ...env, ...renamed });
}

/**
 * Whether the kit hosts a harness's targets as one process does, calling each other directly
 * (CoHostedServices) instead of over gRPC: `IMPRINT_TEST_DIRECT_CALLS=true` runs any test file that
 * way (e.g. the gateway's end-to-end tests), so both paths pass the same scenarios. The kit's own
 * clients (`clients`) always call over gRPC, as an outside caller does.
 */
export function testDirectCalls(env: Record<string, string | undefined> = process.env): boolean {
  return env.IMPRINT_TEST_DIRECT_CALLS === "true";
}

/**
 * Starts `targets` in order, each with the shared PostgreSQL (a fresh database), this file's
 * nats-server, a fresh data directory, the addresses of the targets before it (`<NAME>_GRPC_ADDRESS`)
 * and TEST_SERVICE_ENV. When one fails to start, those already started are stopped and the error
 * is thrown. With `directCalls` (by default testDirectCalls()), they call each other directly.
 */
export async function startServices<const Configs extends readonly unknown[]>(
  targets: { readonly [K in keyof Configs]: TestTarget<Configs[K]> },
  options: { directCalls?: boolean } = {},
): Promise<TestServices> {
  const coHosted = (options.directCalls ?? testDirectCalls()) ? new CoHostedServices() : undefined;
  const entries: Entry[] = [];
  const addresses: Record<string, string> = {};
  const entry = (name: string): Entry & { started: StartedTarget } => {
    const found = entries.find((candidate) => candidate.name === name);
    if (!found?.started) throw new Error(`no target named ${name} was started (started: ${entries.map((candidate) => candidate.name).join(", ")})`);
    return { ...found, started: found.started };
  };
  const address = (name: string): string => {
    const started = entry(name).started;
    if (!started.address) throw new Error(`${name} has no gRPC address`);
    return started.address;
  };
  const clients = serviceClients(address);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clients.close();
      const failures: unknown[] = [];
      for (const current of [...entries].reverse()) {
        if (!current.started || current.stopped) continue;
        current.stopped = true;
        await current.started.stop().catch((error: unknown) => failures.push(error));
      }
      for (const current of entries) if (current.dataDir) await rm(current.dataDir, { recursive: true, force: true });
      if (failures.length > 0) throw new AggregateError(failures, `stopping ${failures.length} test target(s) failed`);
    })();
    return stopping;
  };

  const startOne = async <Config>(target: TestTarget<Config>, natsUrl: string) => {
    const current: Entry = { name: target.name, stopped: false };
    entries.push(current);
    const env: TestEnv = { ...TEST_SERVICE_ENV, NATS_URL: natsUrl, ...addresses };
    if (target.database !== false) {
      current.databaseUrl = target.database ?? (await createTestDatabase(inject("pgAdminUrl"), target.name));
      current.dataDir = await mkdtemp(join(tmpdir(), `imprint-${target.name}-`));
      Object.assign(env, { DATABASE_URL: current.databaseUrl, IMPRINT_DATA_DIR: current.dataDir });
    }
    const config = withOwnConsumers(target, { ...env, ...target.env });
    current.started = await target.start(config, { clock: target.clock, logger: target.logger ?? testLogger(target.name), coHosted });
    if (current.started.address) addresses[addressVariable(target.name)] = current.started.address;
  };

  try {
    const natsUrl = await testNatsUrl();
    for (const target of targets) await startOne(target, natsUrl);
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }

  return {
    clients,
    service: (name) => {
      const started = entry(name).started;
      if (!isRunningService(started)) throw new Error(`${name} is not a service (it has no database or NATS connection)`);
      return started;
    },
    address,
    url: (name) => {
      const url = entry(name).started.url;
      if (!url) throw new Error(`${name} serves no HTTP`);
      return url;
    },
    databaseUrl: (name) => {
      const url = entry(name).databaseUrl;
      if (!url) throw new Error(`${name} has no database`);
      return url;
    },
    dataDir: (name) => {
      const dir = entry(name).dataDir;
      if (!dir) throw new Error(`${name} has no data directory`);
      return dir;
    },
    stopTarget: async (name) => {
      const current = entries.find((candidate) => candidate.name === name);
      if (!current?.started || current.stopped) return;
      current.stopped = true;
      await current.started.stop();
    },
    stop,
  };
}
