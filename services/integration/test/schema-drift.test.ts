import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaDrift } from "@imprint/runtime/testing";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";

/**
 * Migrations are hand-written SQL: after they ran, the schema MikroORM derives from the entities
 * must match the database exactly.
 */
let harness: IntegrationHarness;

beforeAll(async () => {
  harness = await startIntegrationHarness();
});
afterAll(() => harness?.stop());

describe("integration database schema", () => {
  it("matches the entities after the migrations (no drift between entities and SQL)", async () => {
    expect(await schemaDrift(harness.integration.orm)).toBe("");
  });
});
