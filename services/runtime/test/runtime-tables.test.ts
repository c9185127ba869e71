import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { migrateDatabase, openDatabase } from "../src/db/orm.js";
import { RUNTIME_TABLE_NAMES, runtimeTablesSql } from "../src/db/runtime-tables.js";
import { createTestDatabase } from "../src/testing/index.js";
import { describeTables, runtimeTablesAsCreated } from "../src/testing/schema.js";

const here = dirname(fileURLToPath(import.meta.url));

describe("the runtime's tables", () => {
  it("are created by the migration helper exactly as the runtime's entities map them", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "runtime_tables_drift");
    const orm = await openDatabase({ url, entities: [], migrationsPath: join(here, "migration-fixtures"), runMigrations: false });
    try {
      for (const statement of runtimeTablesSql()) await orm.em.getConnection().execute(statement);
      expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe("");
    } finally {
      await orm.close(true);
    }
  });

  it("come out the same from a first migration that calls the helper", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "runtime_tables_migrated");
    await migrateDatabase({ url, migrationsPath: join(here, "service-fixtures", "migrations") });
    const migrated = await describeTables(url, RUNTIME_TABLE_NAMES);
    expect(migrated).toEqual(await runtimeTablesAsCreated(inject("pgAdminUrl")));
    expect(migrated.outbox_events!.columns.map((column) => column.name)).toEqual([
      "id",
      "sequence",
      "subject",
      "type",
      "envelope",
      "trace_headers",
      "created_at",
      "published_at",
    ]);
  });
});
