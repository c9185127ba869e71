import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { createTestDatabase, patient, runNodeScript } from "@imprint/runtime/testing";

const SCRIPT = fileURLToPath(new URL("../../scripts/create-migration.mjs", import.meta.url));
const SERVICES = ["identity", "content", "collaboration", "publishing", "integration"] as const;

/**
 * `npm run migration:create -w @imprint/<service>` diffs the service's entities against the schema
 * its committed migrations build. Its entities must include every one of the runtime's
 * (RUNTIME_ENTITIES), or the migration it writes drops the runtime's tables (`job_leases` once).
 */
describe("scripts/create-migration.mjs", () => {
  it.each(SERVICES)("finds no schema change on %s's committed migrations: it knows every table they create, the runtime's included", async (service) => {
    const url = await createTestDatabase(inject("pgAdminUrl"), `${service}_create_migration`);
    const result = await runNodeScript(SCRIPT, [service, "--dry-run", "--database-url", url], { timeoutMs: patient(60_000) });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe("no schema changes");
  });

  it("names the services it knows when asked for another", async () => {
    const result = await runNodeScript(SCRIPT, ["billing"], { timeoutMs: patient(10_000) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("<identity|content|collaboration|publishing|integration>");
  });
});
