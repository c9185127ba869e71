import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
});

describe("GET /v1/user", () => {
  it("answers the authenticated user, whose location is GET /v1/users/{userId}", async () => {
    const member = await createMember(stack, org, { role: "read", displayName: "Erin Reader" });
    const { data } = await member.api.user.getAuthenticatedUser();
    expect(data).toEqual({
      object: "user",
      id: member.userId,
      displayName: "Erin Reader",
      email: member.email,
      urls: { location: expect.stringMatching(new RegExp(`/v1/users/${member.userId}$`)) },
    });
    const location = new URL(data.urls.location);
    const again = await call(stack, "GET", location.pathname, { token: member.token });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(member.userId);
  });

  it("is 401 without a token", async () => {
    expect((await call(stack, "GET", "/v1/user")).status).toBe(401);
  });
});

describe("GET /v1/users/{userId}", () => {
  it("answers a user sharing an organization with the caller", async () => {
    const member = await createMember(stack, org, { role: "edit", displayName: "Finn Editor" });
    const { data } = await org.owner.api.users.getUserById(member.userId);
    expect(data).toMatchObject({ object: "user", id: member.userId, displayName: "Finn Editor", email: member.email });
    expect((await member.api.users.getUserById(org.owner.userId)).data.id).toBe(org.owner.userId);
  });

  it("is 404 for a user outside every organization of the caller, for unknown ids and for ids that are not ids", async () => {
    const outsider = await createOrganization(stack);
    for (const userId of [outsider.owner.userId, crypto.randomUUID()]) {
      const response = await call(stack, "GET", `/v1/users/${userId}`, { token: org.owner.token });
      expect(response.status).toBe(404);
    }
    expect((await call(stack, "GET", "/v1/users/not-an-id", { token: org.owner.token })).status).toBe(404);
  });
});

describe("PATCH /v1/users/{userId}", () => {
  it("changes one's own display name and photo URL", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const { data } = await member.api.users.updateUserById(member.userId, { displayName: "  Gale New  ", photoURL: "https://example.com/me.png" });
    expect(data).toMatchObject({ id: member.userId, displayName: "Gale New", photoURL: "https://example.com/me.png" });
    const renamed = (await member.api.users.updateUserById(member.userId, { displayName: "Gale" })).data;
    expect(renamed).toMatchObject({ displayName: "Gale", photoURL: "https://example.com/me.png" });
    expect((await org.owner.api.users.getUserById(member.userId)).data.displayName).toBe("Gale");
  });

  it("enforces GitBook's limits with 400 naming the field", async () => {
    const path = `/v1/users/${org.owner.userId}`;
    const cases: [unknown, RegExp][] = [
      [{}, /^body: must contain displayName or photoURL$/],
      [{ displayName: "" }, /^display_name: /],
      [{ displayName: "x".repeat(65) }, /^display_name: must be at most 64 characters/],
      [{ photoURL: "ftp://example.com/a.png" }, /^photo_url: /],
      [{ displayName: 3 }, /^displayName: /],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "PATCH", path, { token: org.owner.token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.error.message).toMatch(message);
    }
    const longest = await call(stack, "PATCH", path, { token: org.owner.token, json: { displayName: "y".repeat(64) } });
    expect(longest.status).toBe(200);
  });

  it("is 403 for another user the caller can see, 404 for one it cannot", async () => {
    const member = await createMember(stack, org, { role: "read", displayName: "Hal" });
    const denied = await call(stack, "PATCH", `/v1/users/${member.userId}`, { token: org.owner.token, json: { displayName: "Hacked" } });
    expect(denied.status).toBe(403);
    const outsider = await createOrganization(stack);
    const hidden = await call(stack, "PATCH", `/v1/users/${outsider.owner.userId}`, { token: org.owner.token, json: { displayName: "Hacked" } });
    expect(hidden.status).toBe(404);
    expect((await org.owner.api.users.getUserById(member.userId)).data.displayName).toBe("Hal");
  });
});
