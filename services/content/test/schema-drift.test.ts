import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaDrift } from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * Migrations are hand-written SQL (three people add tables side by side): after they ran, the
 * schema MikroORM derives from the entities must match the database exactly.
 */
let harness: ContentHarness;

beforeAll(async () => {
  harness = await startContentHarness();
});
afterAll(() => harness?.stop());

describe("content database schema", () => {
  it("matches the entities after the migrations (no drift between entities and SQL)", async () => {
    expect(await schemaDrift(harness.content.orm)).toBe("");
  });
});
