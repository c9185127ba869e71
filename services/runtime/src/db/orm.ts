import { createHash } from "node:crypto";
import { MikroORM, type EntityManager, type Options } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import pg from "pg";
import type { Logger } from "../logger.js";
import { addScrapeSource } from "../metrics/registry.js";
import { dbPoolIdle, dbPoolInUse, dbPoolMax, dbPoolWaiting } from "../metrics/series.js";
import { releaseConnectionsThatDie } from "./dead-connections.js";
import { RUNTIME_ENTITIES } from "./runtime-entities.js";

export interface DatabaseOptions {
  /** postgres:// URL of the service's own database. */
  url: string;
  /** The service's entities; the runtime adds its own (RUNTIME_ENTITIES: outbox, processed events, job leases, keyed calls). */
  entities: NonNullable<Options["entities"]>;
  /** Folder of compiled migrations (dist/migrations of the service). */
  migrationsPath: string;
  /** Apply pending migrations at start (default true). */
  runMigrations?: boolean;
  logger?: Logger;
  debug?: boolean;
  poolMax?: number;
  /** The `service` label of the pool's series (imprint_db_pool_*); a pool without one is not measured. */
  metricsService?: string;
}

/** Measures `pool` at each scrape (connections in use, idle, requests waiting) until it ends. */
function measurePool(pool: pg.Pool, service: string, max: number): void {
  const labels = { service };
  const remove = addScrapeSource({
    collect: () => {
      if (pool.ended) {
        remove();
        return;
      }
      dbPoolInUse.set(labels, pool.totalCount - pool.idleCount);
      dbPoolIdle.set(labels, pool.idleCount);
      dbPoolWaiting.set(labels, pool.waitingCount);
      dbPoolMax.set(labels, max);
    },
  });
}

/** Boots MikroORM on the service's database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  const poolMax = options.poolMax ?? 10;
  const orm = await MikroORM.init({
    clientUrl: options.url,
    entities: [...options.entities, ...RUNTIME_ENTITIES],
    extensions: [Migrator],
    migrations: { path: options.migrationsPath, glob: "!(*.d).{js,ts}", emit: "ts", snapshot: false, transactional: true, silent: true },
    pool: { min: 0, max: poolMax },
    driverOptions: {
      onPoolCreated: (pool: pg.Pool) => {
        // A connection cut while in use goes back to the pool at once (see releaseConnectionsThatDie).
        releaseConnectionsThatDie(pool);
        if (options.metricsService !== undefined) measurePool(pool, options.metricsService, poolMax);
      },
    },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  if (options.runMigrations ?? true) {
    try {
      await applyMigrations(orm, options.url, options.logger);
    } catch (error) {
      await orm.close(true);
      throw error;
    }
  }
  return orm;
}

/**
 * Key of the PostgreSQL advisory lock that serialises one database's migrations. Advisory locks
 * are already scoped to the current database; hashing a prefixed name keeps the key clear of any
 * other advisory lock taken there.
 */
export function migrationLockKey(database: string): string {
  return createHash("sha256").update(`imprint:migrations:${database}`).digest().readBigInt64BE(0).toString();
}

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
}

/**
 * Applies pending migrations while holding the database's migration lock, so replicas starting
 * together and the migrate job never run them at the same time: whoever comes second waits, then
 * finds nothing left to do. The lock is session-level on a connection of its own (the ORM's pool
 * may use a different connection per query) and is released when that connection closes, also
 * when the process dies. Needs a direct or session-pooled connection: a transaction-pooling proxy
 * cannot hold a session lock. Returns the names of the migrations applied.
 */
export async function applyMigrations(orm: MikroORM, url: string, logger?: Logger): Promise<string[]> {
  const key = migrationLockKey(databaseName(url));
  const lock = new pg.Client({ connectionString: url, application_name: "imprint-migrations" });
  // Without a listener a dropped idle connection would crash the process.
  lock.on("error", (error) => logger?.warn("migration lock connection failed", { err: error }));
  await lock.connect();
  try {
    const attempt = await lock.query<{ locked: boolean }>("select pg_try_advisory_lock($1::bigint) as locked", [key]);
    if (!attempt.rows[0]?.locked) {
      logger?.info("waiting for the migration lock (another process is migrating this database)", { lockKey: key });
      await lock.query("select pg_advisory_lock($1::bigint)", [key]);
    }
    const applied = (await orm.migrator.up()).map((migration) => migration.name);
    if (applied.length > 0) logger?.info("applied migrations", { migrations: applied });
    return applied;
  } finally {
    // Ending the session releases the lock.
    await lock.end().catch(() => undefined);
  }
}

/**
 * Migrate mode: opens the database, applies pending migrations under the migration lock and
 * closes it again. Only the runtime's entities are registered: migrations are plain SQL.
 */
export async function migrateDatabase(options: Pick<DatabaseOptions, "url" | "migrationsPath" | "logger" | "debug">): Promise<string[]> {
  const orm = await openDatabase({ ...options, entities: [], runMigrations: false, poolMax: 2 });
  try {
    return await applyMigrations(orm, options.url, options.logger);
  } finally {
    await orm.close(true);
  }
}

/** A fresh EntityManager for one unit of work; use cases never share one. */
export function forkEm(orm: MikroORM): EntityManager {
  return orm.em.fork();
}

/** Creates the database named in `url` when it does not exist (the launcher and tests use this). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ""));
  if (!/^[a-zA-Z0-9_]+$/.test(name)) throw new Error(`unsupported database name "${name}"`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}
