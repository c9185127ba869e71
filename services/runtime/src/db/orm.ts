import { MikroORM, type EntityManager, type Options } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import pg from "pg";
import type { Logger } from "../logger.js";
import { OutboxEvent, ProcessedEvent } from "../events/entities.js";

export interface DatabaseOptions {
  /** postgres:// URL of the service's own database. */
  url: string;
  /** The service's entities; the runtime adds the outbox and processed-event tables. */
  entities: NonNullable<Options["entities"]>;
  /** Folder of compiled migrations (dist/migrations of the service). */
  migrationsPath: string;
  /** Apply pending migrations at start (default true). */
  runMigrations?: boolean;
  logger?: Logger;
  debug?: boolean;
  poolMax?: number;
}

/** Boots MikroORM on the service's database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  const orm = await MikroORM.init({
    clientUrl: options.url,
    entities: [...options.entities, OutboxEvent, ProcessedEvent],
    extensions: [Migrator],
    migrations: { path: options.migrationsPath, glob: "!(*.d).{js,ts}", emit: "ts", snapshot: false, transactional: true, silent: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  if (options.runMigrations ?? true) {
    const applied = await orm.migrator.up();
    if (applied.length > 0) options.logger?.info("applied migrations", { migrations: applied.map((m) => m.name) });
  }
  return orm;
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
