import { describe, expect, inject, it } from "vitest";
import { migrateDatabase, RUNTIME_TABLE_NAMES } from "@imprint/runtime";
import { createTestDatabase, describeTables, runtimeTablesAsCreated } from "@imprint/runtime/testing";
import { PUBLISHING_MIGRATIONS_PATH } from "../src/service.js";

/**
 * The runtime's tables came into this database through the service's own (already applied, never
 * edited) migrations; they must be exactly what the runtime's migration helper creates, which new
 * services' first migrations call.
 */
describe("publishing database", () => {
  it("holds the runtime's tables exactly as the runtime's migration helper creates them", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "publishing_runtime_tables");
    await migrateDatabase({ url, migrationsPath: PUBLISHING_MIGRATIONS_PATH });
    expect(await describeTables(url, RUNTIME_TABLE_NAMES)).toEqual(await runtimeTablesAsCreated(inject("pgAdminUrl")));
  });
});
