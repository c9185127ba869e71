import { randomUUID } from "node:crypto";
import { MemberRole } from "@imprint/proto/identity/v1";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually, uniqueEmail } from "@imprint/runtime/testing";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, gitbookClient, role } from "./support/http.js";
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

/** A user of no organization yet, with a token (an e-mail of `domain` when given). */
async function outsider(email = uniqueEmail("outsider")): Promise<TestUser> {
  const { user } = await stack.identity.users.createUser({ email, displayName: "Oscar Outsider" });
  const { token } = await stack.identity.tokens.issueToken({ email, label: "e2e" });
  return { userId: user!.id, email, caller: { userId: user!.id, tokenId: "" }, token, api: gitbookClient(stack, token) };
}

const orgPath = () => `/v1/orgs/${org.organizationId}`;

describe("POST /v1/orgs/{organizationId}/invites (inviteUsersToOrganization)", () => {
  it("adds the addresses as members with their roles at once, GitBook's answer: no e-mail is sent", async () => {
    const existing = await createMember(stack, org, { role: "edit" });
    const plain = uniqueEmail("plain");
    const reviewer = uniqueEmail("reviewer");
    const { data } = await org.owner.api.orgs.inviteUsersToOrganization(org.organizationId, {
      emails: [plain, { email: reviewer, role: role("review") }, { email: existing.email, role: role("admin") }],
      role: role("read"),
    });
    expect(data.invited).toBe(2);
    expect(data.users).toHaveLength(2);
    const members = (await org.owner.api.orgs.listMembersInOrganizationById(org.organizationId)).data.items;
    const roleOf = (email: string) => members.find((member) => member.user.email === email)?.role;
    expect([roleOf(plain), roleOf(reviewer), roleOf(existing.email)]).toEqual(["read", "review", "edit"]);
  });

  it("refuses non-admins (403), other organizations (404) and bad addresses naming the field (400)", async () => {
    const editor = await createMember(stack, org, { role: "edit" });
    const stranger = await createOrganization(stack);
    const body = { emails: [uniqueEmail("x")] };
    expect((await call(stack, "POST", `${orgPath()}/invites`, { token: editor.token, json: body })).status).toBe(403);
    expect((await call(stack, "POST", `${orgPath()}/invites`, { token: stranger.owner.token, json: body })).status).toBe(404);
    const empty = await call(stack, "POST", `${orgPath()}/invites`, { token: org.owner.token, json: { emails: [] } });
    expect([empty.status, empty.body.error.message]).toEqual([400, expect.stringMatching(/emails/)]);
    const bad = await call(stack, "POST", `${orgPath()}/invites`, { token: org.owner.token, json: { emails: [uniqueEmail("ok"), "not-an-address"] } });
    expect([bad.status, bad.body.error.message]).toEqual([400, expect.stringMatching(/^emails\[1\]: /)]);
  });
});

describe("invite links (/v1/orgs/{organizationId}/link-invites)", () => {
  it("creates, lists, reads and updates links to the organization, a space and a collection, with expiresAt and enabled", async () => {
    const space = await createSpace(stack, org, { title: "Handbook" });
    const collection = await createCollection(stack, org, { title: "Guides" });
    const api = org.owner.api.orgs;
    const toOrganization = (await api.createOrganizationInvite(org.organizationId, { role: role("edit") })).data;
    expect(toOrganization).toMatchObject({ object: "invite", role: "edit", redundant: true, enabled: true, expiresAt: null });
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const toSpace = (
      await api.createOrganizationInvite(org.organizationId, { level: role("comment"), space: space.id, expiresAt, enabled: false } as Parameters<
        typeof api.createOrganizationInvite
      >[1])
    ).data;
    expect(toSpace).toMatchObject({ object: "invite", level: "comment", space: { id: space.id, title: "Handbook" }, expiresAt, enabled: false });
    expect(toSpace).not.toHaveProperty("role");
    const toCollection = (await api.createOrganizationInvite(org.organizationId, { level: role("read"), collection: collection.id })).data;
    expect(toCollection).toMatchObject({ level: "read", collection: { id: collection.id } });

    const listed = (await api.listOrganizationInviteLinks(org.organizationId)).data;
    expect(listed.items.map((item) => item.id)).toEqual([toCollection.id, toSpace.id, toOrganization.id]);
    // GitBook lists links as links to the organization: a link to a space says its users join as guests.
    expect(listed.items[1]).toMatchObject({ role: null, level: "comment", space: { id: space.id } });

    expect((await api.getOrganizationInviteLink(org.organizationId, toSpace.id)).data).toEqual(toSpace);
    const updated = (await api.updateOrganizationInviteById(org.organizationId, toOrganization.id, { role: role("review") })).data;
    expect(updated).toMatchObject({ id: toOrganization.id, role: "review" });
    const enabled = (
      await api.updateOrganizationInviteById(org.organizationId, toSpace.id, { level: role("edit"), enabled: true, expiresAt: null } as Parameters<
        typeof api.updateOrganizationInviteById
      >[2])
    ).data;
    expect(enabled).toMatchObject({ level: "edit", enabled: true, expiresAt: null });
  });

  it("refuses non-admins (403), other organizations (404), unknown targets (404) and bad bodies naming the field (400)", async () => {
    const reader = await createMember(stack, org, { role: "read" });
    const stranger = await createOrganization(stack);
    const strangerSpace = await createSpace(stack, stranger);
    const { id } = (await org.owner.api.orgs.createOrganizationInvite(org.organizationId, { role: role("read") })).data;
    for (const [method, path, json] of [
      ["GET", `${orgPath()}/link-invites`, undefined],
      ["POST", `${orgPath()}/link-invites`, { role: "read" }],
      ["GET", `${orgPath()}/link-invites/${id}`, undefined],
      ["PATCH", `${orgPath()}/link-invites/${id}`, { enabled: false }],
    ] as const) {
      expect([method, path, (await call(stack, method, path, { token: reader.token, json })).status]).toEqual([method, path, 403]);
      expect([method, path, (await call(stack, method, path, { token: stranger.owner.token, json })).status]).toEqual([method, path, 404]);
    }
    // Another organization's link through this organization's path is not found.
    const theirs = (await stranger.owner.api.orgs.createOrganizationInvite(stranger.organizationId, { role: role("read") })).data;
    expect((await call(stack, "GET", `${orgPath()}/link-invites/${theirs.id}`, { token: org.owner.token })).status).toBe(404);
    // A space of another organization cannot be the target.
    const foreign = await call(stack, "POST", `${orgPath()}/link-invites`, { token: org.owner.token, json: { level: "read", space: strangerSpace.id } });
    expect([foreign.status, foreign.body.error.message]).toEqual([404, "Space not found"]);

    const refused = async (method: string, path: string, json: unknown, field: RegExp) => {
      const response = await call(stack, method, path, { token: org.owner.token, json });
      expect([response.status, response.body.error.message]).toEqual([400, expect.stringMatching(field)]);
    };
    await refused("POST", `${orgPath()}/link-invites`, { role: "owner" }, /^role: must be one of/);
    await refused("POST", `${orgPath()}/link-invites`, {}, /^role: /);
    await refused("POST", `${orgPath()}/link-invites`, { role: "read", expiresAt: "tomorrow" }, /^expiresAt: /);
    await refused("PATCH", `${orgPath()}/link-invites/${id}`, {}, /role, level, expiresAt or enabled/);
    await refused("PATCH", `${orgPath()}/link-invites/${id}`, { level: "read" }, /^level: /);
  });
});

describe("POST /v1/orgs/{organizationId}/invites/{inviteId} (joinOrganizationWithInvite)", () => {
  it("lets anyone holding the link join with its role, again and again until revoked; refusals name why", async () => {
    const { id } = (await org.owner.api.orgs.createOrganizationInvite(org.organizationId, { role: role("comment") })).data;
    const first = await outsider();
    expect((await first.api.orgs.joinOrganizationWithInvite(org.organizationId, id)).data).toEqual({});
    expect((await first.api.orgs.getOrganizationById(org.organizationId)).data.id).toBe(org.organizationId);
    expect((await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, first.userId)).data.role).toBe("comment");
    const again = await call(stack, "POST", `${orgPath()}/invites/${id}`, { token: first.token });
    expect([again.status, again.body.error.message]).toEqual([409, "You are already a member of this organization"]);

    const second = await outsider();
    const join = () => call(stack, "POST", `${orgPath()}/invites/${id}`, { token: second.token });
    await org.owner.api.orgs.updateOrganizationInviteById(org.organizationId, id, { enabled: false } as never);
    const disabled = await join();
    expect([disabled.status, disabled.body.error.message]).toEqual([403, expect.stringContaining("disabled")]);
    await org.owner.api.orgs.updateOrganizationInviteById(org.organizationId, id, {
      enabled: true,
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    } as never);
    const expired = await join();
    expect([expired.status, expired.body.error.message]).toEqual([403, expect.stringContaining("expired")]);
    await org.owner.api.orgs.updateOrganizationInviteById(org.organizationId, id, { expiresAt: null } as never);
    expect((await join()).status).toBe(200);

    await org.owner.api.orgs.deleteOrganizationInviteById(org.organizationId, id);
    const third = await outsider();
    const revoked = await call(stack, "POST", `${orgPath()}/invites/${id}`, { token: third.token });
    expect([revoked.status, revoked.body.error.message]).toEqual([404, expect.stringContaining("revoked")]);
    expect((await org.owner.api.orgs.listOrganizationInviteLinks(org.organizationId)).data.items).toEqual([]);
    const unknown = await call(stack, "POST", `${orgPath()}/invites/${randomUUID()}`, { token: third.token });
    expect([unknown.status, unknown.body.error.message]).toEqual([404, "Invite not found"]);
  });

  it("makes a guest through a link to a space, granted the link's level there and nothing else", async () => {
    const space = await createSpace(stack, org);
    const other = await createSpace(stack, org, { title: "Elsewhere" });
    const { id } = (await org.owner.api.orgs.createOrganizationInvite(org.organizationId, { level: role("comment"), space: space.id })).data;
    const guest = await outsider();
    await guest.api.orgs.joinOrganizationWithInvite(org.organizationId, id);
    expect((await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, guest.userId)).data.role).toBeNull();

    // Content makes the grant from identity's member.added: the guest sees the space, at the link's level.
    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${space.id}`, { token: guest.token })).status === 200, 10_000);
    const seen = (await guest.api.spaces.getSpaceById(space.id)).data;
    expect([seen.permissions.comment, seen.permissions.edit]).toEqual([true, false]);
    expect((await call(stack, "GET", `/v1/spaces/${other.id}`, { token: guest.token })).status).toBe(404);
    const grants = (await org.owner.api.spaces.listUserPermissionsInSpace(space.id)).data.items;
    expect(grants.map((item) => [item.user.id, item.permission])).toEqual([[guest.userId, "comment"]]);

    // Leaving the organization takes the grant away: added back as a guest (no link), they see nothing.
    expect((await call(stack, "DELETE", `${orgPath()}/members/${guest.userId}`, { token: org.owner.token })).status).toBe(204);
    await stack.identity.members.addMember({ organizationId: org.organizationId, email: guest.email, role: MemberRole.MEMBER_ROLE_GUEST });
    await eventually(async () => (await org.owner.api.spaces.listUserPermissionsInSpace(space.id)).data.items.length === 0, 10_000);
    expect((await call(stack, "GET", `/v1/spaces/${space.id}`, { token: guest.token })).status).toBe(404);
  });
});

describe("POST /v1/orgs/{organizationId}/join (joinOrganization)", () => {
  it("lets a user of one of the organization's e-mail domains join with its default role (204); others get 400 naming the domain", async () => {
    await org.owner.api.orgs.updateOrganizationById(org.organizationId, { emailDomains: ["example.com"], defaultRole: role("edit") });
    const colleague = await outsider();
    expect((await colleague.api.orgs.joinOrganization(org.organizationId)).status).toBe(204);
    expect((await org.owner.api.orgs.getMemberInOrganizationById(org.organizationId, colleague.userId)).data.role).toBe("edit");
    expect((await call(stack, "POST", `${orgPath()}/join`, { token: colleague.token })).status).toBe(409);

    const stranger = await outsider(`stranger-${randomUUID().slice(0, 8)}@elsewhere.org`);
    const refused = await call(stack, "POST", `${orgPath()}/join`, { token: stranger.token });
    expect([refused.status, refused.body.error.message]).toEqual([400, expect.stringContaining("elsewhere.org")]);
    expect((await call(stack, "POST", `/v1/orgs/${randomUUID()}/join`, { token: stranger.token })).status).toBe(404);
  });
});

describe("POST /v1/orgs (createOrganization)", () => {
  it("creates an organization whose admin is the caller (201, Location)", async () => {
    const founder = await outsider();
    const response = await founder.api.orgs.createOrganization({ title: "Founded by API", emailDomains: ["example.com"] });
    expect(response.status).toBe(201);
    const organization = response.data;
    expect(response.headers.get("location")).toBe(organization.urls.location);
    expect([organization.title, organization.emailDomains, organization.permissions.admin]).toEqual(["Founded by API", ["example.com"], true]);
    expect((await founder.api.orgs.getMemberInOrganizationById(organization.id, founder.userId)).data.role).toBe("admin");

    const short = await call(stack, "POST", "/v1/orgs", { token: founder.token, json: { title: "x" } });
    expect([short.status, short.body.error.message]).toEqual([400, expect.stringMatching(/^title: /)]);
    const withSite = await call(stack, "POST", "/v1/orgs?withDefaultSite=true", { token: founder.token, json: { title: "With a site" } });
    expect([withSite.status, withSite.body.error.message]).toEqual([400, expect.stringMatching(/^withDefaultSite: /)]);
  });
});

describe("GET /v1/ (getApiInformation)", () => {
  it("answers the release and build date", async () => {
    const { data } = await org.owner.api.getApiInformation();
    expect(data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(new Date(data.build).toISOString()).toBe(data.build);
  });
});
