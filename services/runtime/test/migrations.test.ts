import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { applyMigrations, migrateDatabase, migrationLockKey, openDatabase } from "../src/db/orm.js";
import { migrateService } from "../src/service.js";
import { createTestDatabase, eventually, testLogger } from "../src/testing/index.js";

const migrationsPath = join(dirname(fileURLToPath(import.meta.url)), "migration-fixtures");
const FIXTURE_MIGRATIONS = ["Migration20260201000000", "Migration20260201000100"];

const clients: pg.Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.end()));
});

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return client;
}

/** Rows of MikroORM's migration table, one per applied migration. */
async function recordedMigrations(url: string): Promise<string[]> {
  const client = await connect(url);
  const { rows } = await client.query<{ name: string }>("select name from mikro_orm_migrations order by name");
  return rows.map((row) => row.name);
}

function recordingLogger() {
  const logger = testLogger("migrations-test", { level: "info", record: true });
  return { lines: logger.lines, logger };
}

describe("migrations under the advisory lock", () => {
  it("two concurrent runs on one database both succeed and apply each migration once", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "migrate_race");
    // One replica starting (start-time path) while the migrate job runs (migrate mode).
    const [started, migrated] = await Promise.all([openDatabase({ url, entities: [], migrationsPath }), migrateDatabase({ url, migrationsPath })]);
    try {
      const appliedByStart = (await started.migrator.getExecuted()).map((m) => m.name);
      expect(appliedByStart.sort()).toEqual(FIXTURE_MIGRATIONS);
      expect(await recordedMigrations(url)).toEqual(FIXTURE_MIGRATIONS);
      // Whoever got the lock first applied both; the other found nothing left to do.
      expect(migrated.length === 0 || migrated.length === 2).toBe(true);
    } finally {
      await started.close(true);
    }
  });

  it("waits while another session holds the database's migration lock, then migrates", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "migrate_wait");
    const database = new URL(url).pathname.slice(1);
    const holder = await connect(url);
    await holder.query("select pg_advisory_lock($1::bigint)", [migrationLockKey(database)]);

    const { lines, logger } = recordingLogger();
    let done = false;
    const run = migrateDatabase({ url, migrationsPath, logger }).finally(() => (done = true));
    await eventually(async () => lines.some((line) => line.msg.startsWith("waiting for the migration lock")));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toBe(false);
    const probe = await connect(url);
    expect((await probe.query("select to_regclass('mikro_orm_migrations') as t")).rows[0].t).toBeNull();

    await holder.query("select pg_advisory_unlock($1::bigint)", [migrationLockKey(database)]);
    expect(await run).toEqual(FIXTURE_MIGRATIONS);
    expect(await recordedMigrations(url)).toEqual(FIXTURE_MIGRATIONS);
  });

  it("derives a distinct, stable lock key per database and releases the lock afterwards", async () => {
    expect(migrationLockKey("imprint_identity")).toBe(migrationLockKey("imprint_identity"));
    expect(migrationLockKey("imprint_identity")).not.toBe(migrationLockKey("imprint_content"));
    expect(BigInt(migrationLockKey("imprint_content"))).toBeLessThan(2n ** 63n);

    const url = await createTestDatabase(inject("pgAdminUrl"), "migrate_release");
    const orm = await openDatabase({ url, entities: [], migrationsPath, runMigrations: false });
    try {
      expect(await applyMigrations(orm, url)).toEqual(FIXTURE_MIGRATIONS);
      expect(await applyMigrations(orm, url)).toEqual([]);
    } finally {
      await orm.close(true);
    }
    const other = await connect(url);
    const { rows } = await other.query<{ locked: boolean }>("select pg_try_advisory_lock($1::bigint) as locked", [
      migrationLockKey(new URL(url).pathname.slice(1)),
    ]);
    expect(rows[0]?.locked).toBe(true);
  });
});

describe("migrate mode", () => {
  it("needs only DATABASE_URL, applies pending migrations and reports an up-to-date schema next time", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "migrate_mode");
    const { lines, logger } = recordingLogger();
    const spec = { name: "widgets", migrationsPath };
    expect(await migrateService(spec, { DATABASE_URL: url, NATS_URL: "" }, logger)).toEqual(FIXTURE_MIGRATIONS);
    expect(await migrateService(spec, { DATABASE_URL: url }, logger)).toEqual([]);
    expect(lines.map((line) => line.msg)).toEqual(["applied migrations", "database schema is up to date"]);
    await expect(migrateService(spec, {}, logger)).rejects.toThrow(/DATABASE_URL/);
  });
});
