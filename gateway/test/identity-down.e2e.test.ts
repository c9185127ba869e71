import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

// Tokens are fresh for a minute and kept five while identity is unreachable: the test moves the
// gateway's clock past the first, so what answers is the stale-if-error path, not the cache's TTL.
const FRESH_MS = 60_000;

let stack: TestStack;
let org: TestOrganization;
let revoked: TestUser;
let removed: TestUser;
let spaceId: string;

beforeAll(async () => {
  stack = await startStack({
    gatewayOnClock: true,
    gatewayEnv: { AUTH_CACHE_TTL_MS: String(FRESH_MS), AUTH_STALE_IF_ERROR_MS: "300000" },
    // Content asks identity for the caller's role at every request: its stale-if-error path answers.
    contentEnv: { MEMBERSHIP_CACHE_TTL_MS: "0" },
  });
  org = await createOrganization(stack);
  revoked = await createMember(stack, org, { role: "admin" });
  removed = await createMember(stack, org, { role: "edit" });
  spaceId = (await createSpace(stack, org, { title: "Before" })).id;
  for (const user of [org.owner, revoked, removed]) {
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: user.token })).status).toBe(200);
  }
  // Revoked while identity is up: the gateway hears token.revoked (its cached answer is still fresh,
  // so only the event can refuse it), and keeps refusing it through the outage.
  await stack.identity.tokens.revokeToken({ token: revoked.token, tokenId: "" });
  await eventually(async () => (await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: revoked.token })).status === 401);

  // Removed while identity is up: its role (and principal) are dropped by member.removed.
  expect((await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/members/${removed.userId}`, { token: org.owner.token })).status).toBe(204);
  await eventually(async () => (await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: removed.token })).status === 404);

  await stack.stopUpstream("identity");
  stack.clock.advance(FRESH_MS + 1_000);
});
afterAll(() => stack?.stop());

describe("with identity down, a token used in the last five minutes", () => {
  it("reads, creates and changes spaces", async () => {
    const token = org.owner.token;
    const list = await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((space: { id: string }) => space.id)).toContain(spaceId);

    const created = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token, json: { title: "During the outage" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const changed = await call(stack, "PATCH", `/v1/spaces/${created.body.id}`, { token, json: { title: "Renamed during the outage" } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const read = await call(stack, "GET", `/v1/spaces/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.title).toBe("Renamed during the outage");
  });
});

describe("with identity down", () => {
  it("answers a token never seen 503 with Retry-After", async () => {
    const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: "imp_neverseenbefore0000000000" });
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(response.body).toEqual({ error: { code: 503, message: "Service temporarily unavailable" } });
  });

  it("refuses a token revoked before the outage with 401", async () => {
    const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: revoked.token });
    expect(response.status).toBe(401);
  });

  it("never lets a member removed before the outage back in", async () => {
    const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces`, { token: removed.token });
    expect([404, 503]).toContain(response.status);
  });

  it("answers 503 with Retry-After on a route that needs identity", async () => {
    const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
