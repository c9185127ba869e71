import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMember, createOrganization, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, role } from "./support/http.js";
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

async function listIds(user: TestUser, query: Parameters<TestUser["api"]["orgs"]["listMembersInOrganizationById"]>[1] = {}) {
  const { data } = await user.api.orgs.listMembersInOrganizationById(org.organizationId, query);
  return data;
}

describe("members seen by a guest", () => {
  it("cannot be listed (403), and a guest reads only themself: any other member is 404 like one that does not exist", async () => {
    const colleague = await createMember(stack, org, { role: "edit", displayName: "Colleague" });
    const guest = await createMember(stack, org, { role: "guest", displayName: "Visitor" });
    const organization = (await guest.api.orgs.getOrganizationById(org.organizationId)).data;
    expect(organization.permissions.listMembers).toBe(false);

    const listed = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members`, { token: guest.token });
    expect([listed.status, listed.body.error.message]).toEqual([403, "Guests cannot list the organization's members"]);
    const filtered = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?role=admin&search=${encodeURIComponent(org.owner.email)}`, {
      token: guest.token,
    });
    expect(filtered.status).toBe(403);

    const self = (await guest.api.orgs.getMemberInOrganizationById(org.organizationId, guest.userId)).data;
    expect([self.id, self.role, self.user.email]).toEqual([guest.userId, null, guest.email]);
    const other = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${colleague.userId}`, { token: guest.token });
    const admin = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${org.owner.userId}`, { token: guest.token });
    const invented = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${randomUUID()}`, { token: guest.token });
    for (const answer of [other, admin, invented]) expect([answer.status, answer.body.error.message]).toEqual([404, invented.body.error.message]);
    expect(JSON.stringify([other.body, admin.body])).not.toContain(colleague.email);

    // Every route naming a member answers a guest alike for a real member and an invented id.
    const memberRoutes: { method: string; path: (userId: string) => string; json?: unknown }[] = [
      { method: "GET", path: (userId) => `/v1/orgs/${org.organizationId}/members/${userId}` },
      { method: "PATCH", path: (userId) => `/v1/orgs/${org.organizationId}/members/${userId}`, json: { role: "read" } },
      { method: "DELETE", path: (userId) => `/v1/orgs/${org.organizationId}/members/${userId}` },
      { method: "POST", path: (userId) => `/v1/orgs/${org.organizationId}/members/${userId}/sso` },
      { method: "GET", path: (userId) => `/v1/orgs/${org.organizationId}/members/${userId}/teams` },
    ];
    const nobody = randomUUID();
    for (const route of memberRoutes) {
      const real = await call(stack, route.method, route.path(colleague.userId), { token: guest.token, json: route.json });
      const fake = await call(stack, route.method, route.path(nobody), { token: guest.token, json: route.json });
      const label = `${route.method} ${route.path(":userId")}`;
      expect([label, real.status, real.body?.error?.message]).toEqual([label, fake.status, fake.body?.error?.message]);
    }
    expect((await colleague.api.orgs.getMemberInOrganizationById(org.organizationId, colleague.userId)).data.role).toBe(role("edit"));

    // Members with a role still list and read everyone.
    expect((await colleague.api.orgs.listMembersInOrganizationById(org.organizationId)).data.count).toBe(3);
    expect((await colleague.api.orgs.getMemberInOrganizationById(org.organizationId, guest.userId)).data.id).toBe(guest.userId);
  });
});

describe("GET /v1/orgs/{organizationId}/members", () => {
  it("filters by role (guest included), searches name and e-mail, sorts by name both ways", async () => {
    const alice = await createMember(stack, org, { role: "edit", displayName: "Alice Zed" });
    const bob = await createMember(stack, org, { role: "edit", displayName: "Bob Young" });
    const guest = await createMember(stack, org, { role: "guest", displayName: "Carol Xu" });

    const editors = await listIds(org.owner, { role: role("edit") });
    expect(editors.items.map((m) => m.id).sort()).toEqual([alice.userId, bob.userId].sort());
    expect(editors.items.every((m) => m.role === role("edit"))).toBe(true);
    expect(editors.count).toBe(2);

    const guests = await listIds(org.owner, { role: "guest" });
    expect(guests.items.map((m) => m.id)).toEqual([guest.userId]);
    expect(guests.items[0]!.role).toBeNull();

    expect((await listIds(org.owner, { search: "alice z" })).items.map((m) => m.id)).toEqual([alice.userId]);
    expect((await listIds(org.owner, { search: bob.email.slice(0, 12).toUpperCase() })).items.map((m) => m.id)).toEqual([bob.userId]);

    const ascending = (await listIds(org.owner, { sort: "name", order: "asc", role: role("edit") })).items.map((m) => m.user.displayName);
    expect(ascending).toEqual(["Alice Zed", "Bob Young"]);
    const descending = (await listIds(org.owner, { sort: "name", order: "desc", role: role("edit") })).items.map((m) => m.user.displayName);
    expect(descending).toEqual(["Bob Young", "Alice Zed"]);
  });

  it("pages with next.page until the last page, which has no next", async () => {
    for (let i = 0; i < 4; i++) await createMember(stack, org, { role: "read" });
    const all = await listIds(org.owner);
    expect(all.count).toBe(5);
    expect(all.next).toBeUndefined();

    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const list = await listIds(org.owner, { limit: 2, page });
      expect(list.items.length).toBeLessThanOrEqual(2);
      expect(list.count).toBe(5);
      seen.push(...list.items.map((m) => m.id));
      page = list.next?.page;
      pages += 1;
    } while (page && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.items.map((m) => m.id));
  });

  it("sorting by lastSeenAt lists only members who were active", async () => {
    const active = await createMember(stack, org, { role: "read" });
    const idle = await createMember(stack, org, { role: "read" });
    const ping = await active.api.orgs.updateOrganizationMemberLastSeenAt(org.organizationId);
    // interface.md: ping may answer serviceVisitorClaims (GitBook: gitbookVisitorClaims); Imprint issues none.
    expect(ping.data).toEqual({});
    const ids = (await listIds(org.owner, { sort: "lastSeenAt" })).items.map((m) => m.id);
    expect(ids).toContain(active.userId);
    expect(ids).not.toContain(idle.userId);
  });

  it("rejects bad filters with 400 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["role=owner", 'role: must be one of "admin", "create", "edit", "review", "comment", "read", "guest"'],
      ["sort=email", 'sort: must be one of "joinedAt", "lastSeenAt", "name"'],
      ["order=up", 'order: must be one of "asc", "desc"'],
      ["limit=1001", "limit: must be an integer between 0 and 1000"],
    ];
    for (const [query, message] of cases) {
      const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?${query}`, { token: org.owner.token });
      expect(response.status, query).toBe(400);
      expect(response.body.error.message).toBe(message);
    }
  });
});

describe("GET /v1/orgs/{organizationId}/members/{userId}", () => {
  it("returns the member with its user", async () => {
    const member = await createMember(stack, org, { role: "comment", displayName: "Dana Reviewer" });
    const { data } = await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, member.userId);
    expect(data).toMatchObject({
      object: "member",
      id: member.userId,
      role: "comment",
      disabled: false,
      sso: false,
      user: {
        object: "user",
        id: member.userId,
        displayName: "Dana Reviewer",
        email: member.email,
        urls: { location: expect.stringContaining(member.userId) },
      },
    });
    expect(data).not.toHaveProperty("lastSeenAt");
    expect(Number.isNaN(Date.parse(data.joinedAt))).toBe(false);
  });

  it("is 404 for a user who is not a member", async () => {
    const outsider = await createOrganization(stack);
    const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${outsider.owner.userId}`, { token: org.owner.token });
    expect(response.status).toBe(404);
  });
});

describe("PATCH /v1/orgs/{organizationId}/members/{userId}", () => {
  it("changes the role, and null makes the member a guest", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const reviewer = (await org.owner.api.orgs.updateMemberInOrganizationById(org.organizationId, member.userId, { role: role("review") })).data;
    expect(reviewer.role).toBe("review");
    const guest = (await org.owner.api.orgs.updateMemberInOrganizationById(org.organizationId, member.userId, { role: null })).data;
    expect(guest.role).toBeNull();
    expect((await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, member.userId)).data.role).toBeNull();
  });

  it("requires a valid role", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const path = `/v1/orgs/${org.organizationId}/members/${member.userId}`;
    const missing = await call(stack, "PATCH", path, { token: org.owner.token, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("role: is required");
    const wrong = await call(stack, "PATCH", path, { token: org.owner.token, json: { role: 3 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/^role: /);
  });

  it("is forbidden to non-admins", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const editor = await createMember(stack, org, { role: "edit" });
    const response = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}/members/${member.userId}`, {
      token: editor.token,
      json: { role: "admin" },
    });
    expect(response.status).toBe(403);
  });

  it("refuses to demote the last admin with 412 and says why", async () => {
    const response = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}/members/${org.owner.userId}`, {
      token: org.owner.token,
      json: { role: "edit" },
    });
    expect(response.status).toBe(412);
    expect(response.body.error.code).toBe(412);
    expect(response.body.error.message).toMatch(/admin/i);

    // With a second admin, the demotion goes through.
    await createMember(stack, org, { role: "admin" });
    const demoted = await org.owner.api.orgs.updateMemberInOrganizationById(org.organizationId, org.owner.userId, { role: role("edit") });
    expect(demoted.data.role).toBe("edit");
  });
});

describe("DELETE /v1/orgs/{organizationId}/members/{userId}", () => {
  it("removes a member with 204 and answers 204 again once gone", async () => {
    // interface.md: 204 in both cases (GitBook: 205 when removed, 204 when absent).
    const member = await createMember(stack, org, { role: "read" });
    const removed = await org.owner.api.orgs.removeMemberFromOrganizationById(org.organizationId, member.userId);
    expect(removed.status).toBe(204);
    const again = await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/members/${member.userId}`, { token: org.owner.token });
    expect(again.status).toBe(204);
    const gone = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${member.userId}`, { token: org.owner.token });
    expect(gone.status).toBe(404);
  });

  it("refuses to remove the last admin with 412", async () => {
    const response = await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/members/${org.owner.userId}`, { token: org.owner.token });
    expect(response.status).toBe(412);
  });
});

describe("POST /v1/orgs/{organizationId}/ping", () => {
  it("answers {} and records the caller's activity", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const response = await call(stack, "POST", `/v1/orgs/${org.organizationId}/ping`, { token: member.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    const { data } = await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, member.userId);
    expect(Number.isNaN(Date.parse(data.lastSeenAt ?? ""))).toBe(false);
  });
});

describe("POST /v1/orgs/{organizationId}/members/{userId}/sso", () => {
  it("marks the member as an SSO member; admins only", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const denied = await call(stack, "POST", `/v1/orgs/${org.organizationId}/members/${member.userId}/sso`, { token: member.token });
    expect(denied.status).toBe(403);
    const { data } = await org.owner.api.orgs.setUserAsSsoMemberForOrganization(org.organizationId, member.userId);
    expect(data).toMatchObject({ id: member.userId, sso: true });
  });
});
