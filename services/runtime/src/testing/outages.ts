import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNatsServer, type NatsServerHandle } from "../infrastructure/nats.js";
import { getFreePort } from "../infrastructure/ports.js";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../infrastructure/postgres.js";

/** A server a test stops and starts again, on the same port and data (an outage and its end). */
export interface RestartableServer {
  /** True while it runs. */
  readonly running: boolean;
  /** Stops it (an outage); idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data; idempotent. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

export interface RestartablePostgres extends RestartableServer {
  /** postgres:// URL of a database on this server. */
  urlFor(database: string): string;
  createDatabase(name: string): Promise<void>;
}

async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // Running as root, PostgreSQL runs as the postgres user, which must reach its data directory.
  await chmod(dir, 0o755);
  return dir;
}

/**
 * A PostgreSQL of the test's own (not the run's shared one), to take away from a service and give
 * back. Its data is kept across `stop`/`start`; `close` removes it. Starting one costs a few seconds.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = await scratchDir("imprint-test-own-pg-");
  const port = await getFreePort();
  // Persistent: a throw-away cluster would be deleted by its stop.
  const boot = () => startEmbeddedPostgres({ dataDir: join(dir, "pg"), port, persistent: true });
  let handle: EmbeddedPostgresHandle | undefined = await boot();
  const first = handle;
  const server: RestartablePostgres = {
    get running() {
      return handle !== undefined;
    },
    urlFor: (database) => first.urlFor(database),
    createDatabase: (name) => first.createDatabase(name),
    async stop() {
      const current = handle;
      handle = undefined;
      await current?.stop();
    },
    async start() {
      handle ??= await boot();
    },
    async close() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}

export interface RestartableNats extends RestartableServer {
  url: string;
  /** Deletes the JetStream store while stopped: the next `start` is a server that lost every stream. */
  wipe(): Promise<void>;
}

/**
 * A nats-server of the test's own (JetStream, file store kept across `stop`/`start`). With
 * `started: false` it is created stopped: its URL refuses connections until `start`.
 */
export async function startRestartableNats(options: { started?: boolean } = {}): Promise<RestartableNats> {
  const dir = await scratchDir("imprint-test-own-nats-");
  const port = await getFreePort();
  let handle: NatsServerHandle | undefined;
  const server: RestartableNats = {
    url: `nats://127.0.0.1:${port}`,
    get running() {
      return handle !== undefined;
    },
    async stop() {
      const current = handle;
      handle = undefined;
      await current?.stop();
    },
    async start() {
      handle ??= await startNatsServer({ storeDir: join(dir, "store"), port });
    },
    async wipe() {
      if (handle) throw new Error("stop the nats-server before wiping its store");
      await rm(join(dir, "store"), { recursive: true, force: true });
    },
    async close() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (options.started !== false) await server.start();
  // A worker that dies without running its hooks must not leave the server behind.
  process.once("exit", () => handle?.process.kill("SIGKILL"));
  return server;
}
