import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { createTestDatabase, patient, runNodeScript } from "@imprint/runtime/testing";

const SCRIPT = fileURLToPath(new URL("../scripts/create-migration.mjs", import.meta.url));

/**
 * The script README's "Changing the schema" runs diffs the entities against the schema the
 * committed migrations build. Its entities must include every one of the runtime's
 * (RUNTIME_ENTITIES), or the migration it writes drops the runtime's tables (`job_leases` once).
 */
describe("collaboration's create-migration script", () => {
  it("finds no schema change on the committed migrations: it knows every table they create, the runtime's included", async () => {
    const url = await createTestDatabase(inject("pgAdminUrl"), "collaboration_create_migration");
    const result = await runNodeScript(SCRIPT, ["--dry-run", "--database-url", url], { timeoutMs: patient(60_000) });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe("no schema changes");
  });
});
