import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaDrift } from "@imprint/runtime/testing";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/**
 * Migrations are hand-written SQL: after they ran, the schema MikroORM derives from the entities
 * must match the database exactly.
 */
let harness: CollaborationHarness;

beforeAll(async () => {
  harness = await startCollaborationHarness();
});
afterAll(() => harness?.stop());

describe("collaboration database schema", () => {
  it("matches the entities after the migrations (no drift between entities and SQL)", async () => {
    expect(await schemaDrift(harness.collaboration.orm)).toBe("");
  });
});
