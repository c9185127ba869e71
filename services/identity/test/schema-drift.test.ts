import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaDrift } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/**
 * Migrations are hand-written SQL: after they ran, the schema MikroORM derives from the entities
 * must match the database exactly.
 */
let identity: TestIdentity;

beforeAll(async () => {
  identity = await startTestIdentity();
});
afterAll(() => identity?.stop());

describe("identity database schema", () => {
  it("matches the entities after the migrations (no drift between entities and SQL)", async () => {
    expect(await schemaDrift(identity.running.orm)).toBe("");
  });
});
