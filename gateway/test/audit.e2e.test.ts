import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, role } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The organization's audit log through GitBook's own client (every answer checked against
 * GitBook's schema): real changes made through REST come back as entries (the log follows the
 * services' events, so reads poll until they arrive), with GitBook's filters and pages; admins only.
 */
let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;
let creator: TestUser;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  other = await createOrganization(stack);
  creator = await createMember(stack, org, { role: "create", displayName: "Cora Creator" });
});
afterAll(() => stack?.stop());

type AuditQuery = NonNullable<Parameters<TestUser["api"]["orgs"]["listOrganizationAuditEvents"]>[1]>;
const list = async (query: AuditQuery = {}, user = org.owner) => (await user.api.orgs.listOrganizationAuditEvents(org.organizationId, query)).data;

/** The entries of `action` on `target`, once the log holds `count` of them. */
function entries(action: string, target: string, count = 1) {
  return eventually(async () => {
    const { items } = await list({ action, target });
    return items.length >= count ? items : undefined;
  }, 15_000);
}

describe("the audit log", () => {
  it("records a space created, a member's role changed and a site published, each by whom and when", async () => {
    const before = new Date();
    const space = (await org.owner.api.orgs.createSpace(org.organizationId, { title: "Handbook" })).data;
    const reader = await createMember(stack, org, { role: "read", displayName: "Rita Reader" });
    await org.owner.api.orgs.updateMemberInOrganizationById(org.organizationId, reader.userId, { role: role("review") });
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Docs", spaces: [space.id] })).data;
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);

    const [created] = await entries("space.created", space.id);
    expect(created).toMatchObject({
      object: "audit-event",
      action: "space.created",
      actor: { type: "user", id: org.owner.userId },
      source: "api",
      target: { type: "space", id: space.id, label: "Handbook" },
      urls: { location: `${stack.baseUrl}/v1/orgs/${org.organizationId}/audit-events/${created!.id}` },
    });
    expect(Date.parse(created!.occurredAt)).toBeGreaterThanOrEqual(before.getTime() - 1000);

    const [roleChanged] = await entries("organization.member.role-updated", reader.userId);
    expect(roleChanged!.target).toEqual({ type: "user", id: reader.userId, label: "Rita Reader" });
    const details = (await org.owner.api.orgs.getOrganizationAuditEvent(org.organizationId, roleChanged!.id)).data;
    expect(details).toMatchObject({
      ...roleChanged,
      schemaVersion: 1,
      payload: { eventType: "member.role_changed", userId: reader.userId, from: "read", to: "review" },
    });

    const [published] = await entries("site.published", site.id);
    expect(published!.target).toMatchObject({ type: "site", id: site.id });
    await entries("site.created", site.id);

    // Newest first: the publication occurred after the space's creation.
    const everything = await list({ from: before.toISOString(), limit: 100 });
    const order = everything.items.map((item) => item.id);
    expect(order.indexOf(published!.id)).toBeLessThan(order.indexOf(created!.id));
  });

  it("records grants on a space, a person's and a team's, given and taken away, with whose and which levels", async () => {
    const space = (await org.owner.api.orgs.createSpace(org.organizationId, { title: "Granted" })).data;
    const team = (await org.owner.api.orgs.createOrganizationTeam(org.organizationId, { title: "Auditors", members: [] })).data;
    await org.owner.api.spaces.inviteToSpace(space.id, { users: [creator.userId], teams: [team.id], role: role("comment") });
    await org.owner.api.spaces.removeUserFromSpace(space.id, creator.userId);

    const changes = await entries("space.permission.updated", space.id, 3);
    const payloads = await Promise.all(
      changes.map(async (entry) => (await org.owner.api.orgs.getOrganizationAuditEvent(org.organizationId, entry.id)).data.payload),
    );
    expect(changes.every((entry) => entry.actor.id === org.owner.userId && entry.target.type === "space")).toBe(true);
    // Whose grant, and its levels before and after (null: none).
    const summary = payloads.map((payload) => {
      const fields = payload as { eventType: string; userId?: string; teamId?: string; fromLevel?: string | null; level?: string | null };
      return [fields.eventType, fields.userId || fields.teamId, fields.fromLevel ?? null, fields.level ?? null];
    });
    expect(summary).toEqual(
      expect.arrayContaining([
        ["space.permission_changed", creator.userId, null, "comment"],
        ["space.permission_changed", team.id, null, "comment"],
        ["space.permission_changed", creator.userId, "comment", null],
      ]),
    );
  });

  it("filters by actor and time, and pages with GitBook's limit (1 to 100, default 20)", async () => {
    const start = new Date();
    const spaces = [];
    for (const title of ["One", "Two", "Three"]) spaces.push((await creator.api.orgs.createSpace(org.organizationId, { title })).data);
    for (const space of spaces) await entries("space.created", space.id);

    const byCreator = await list({ actor: creator.userId, action: "space.created", from: start.toISOString() });
    expect(byCreator.items.map((item) => item.target.id)).toEqual(spaces.map((space) => space.id).reverse());
    expect(byCreator.count).toBe(3);
    expect((await list({ actor: creator.userId, to: new Date(start.getTime() - 60_000).toISOString() })).items).toEqual([]);

    const first = await list({ actor: creator.userId, action: "space.created", limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await list({ actor: creator.userId, action: "space.created", limit: 2, page: first.next!.page });
    expect([...first.items, ...second.items].map((item) => item.target.id)).toEqual(spaces.map((space) => space.id).reverse());
    expect(second.next).toBeUndefined();
    expect((await list()).items.length).toBeLessThanOrEqual(20);

    for (const [query, field] of [
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["from=yesterday", "from"],
      [`from=${new Date().toISOString()}&to=${start.toISOString()}`, "from"],
    ] as const) {
      const refused = await call(stack, "GET", `/v1/orgs/${org.organizationId}/audit-events?${query}`, { token: org.owner.token });
      expect([query, refused.status, refused.body.error.message]).toEqual([query, 400, expect.stringContaining(field)]);
    }
  });

  it("lists its actions with their labels", async () => {
    const { items } = (await org.owner.api.orgs.listOrganizationAuditEventActions(org.organizationId)).data;
    expect(items).toContainEqual({ object: "audit-event-action", id: "site.published", label: "Published site" });
    expect(items).toContainEqual({ object: "audit-event-action", id: "organization.member.role-updated", label: "Updated organization member role" });
  });

  it("is the admins' alone: a member is refused (403), another organization's log and entries are not found (404)", async () => {
    const { items } = await list();
    const auditEventId = items[0]!.id;
    const paths = [`/audit-events`, `/audit-events/${auditEventId}`, `/audit-event-actions`];
    for (const path of paths) {
      const refused = await call(stack, "GET", `/v1/orgs/${org.organizationId}${path}`, { token: creator.token });
      expect([path, refused.status]).toEqual([path, 403]);
      const stranger = await call(stack, "GET", `/v1/orgs/${org.organizationId}${path}`, { token: other.owner.token });
      expect([path, stranger.status]).toEqual([path, 404]);
    }
    // An entry of this organization is not one of the other's, nor is an id that names nothing.
    for (const id of [auditEventId, randomUUID()]) {
      const missing = await call(stack, "GET", `/v1/orgs/${other.organizationId}/audit-events/${id}`, { token: other.owner.token });
      expect(missing.status).toBe(404);
    }
  });
});
