import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaDrift } from "@imprint/runtime/testing";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/**
 * Migrations are hand-written SQL: after they ran, the schema MikroORM derives from the entities
 * must match the database exactly.
 */
let harness: PublishingHarness;

beforeAll(async () => {
  harness = await startPublishingHarness();
});
afterAll(() => harness?.stop());

describe("publishing database schema", () => {
  it("matches the entities after the migrations (no drift between entities and SQL)", async () => {
    expect(await schemaDrift(harness.publishing.orm)).toBe("");
  });
});
