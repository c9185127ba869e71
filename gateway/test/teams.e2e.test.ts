import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, role } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Teams and their members through GitBook's own client (every answer checked against GitBook's
 * schema): who may read and manage them, bulk changes applied whole or not at all, counts.
 */
let stack: TestStack;
let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
  alice = await createMember(stack, org, { role: "edit", displayName: "Alice" });
  bob = await createMember(stack, org, { role: "read", displayName: "Bob" });
  guest = await createMember(stack, org, { role: "guest" });
});

const orgs = (user: TestUser) => user.api.orgs;
const teamPath = (teamId = "") => `/v1/orgs/${org.organizationId}/teams${teamId ? `/${teamId}` : ""}`;

async function newTeam(title: string, members: string[] = []) {
  const response = await orgs(org.owner).createOrganizationTeam(org.organizationId, { title, members });
  expect(response.status).toBe(201);
  return response.data;
}

describe("teams", () => {
  it("are created by admins with members, read by members, renamed and deleted", async () => {
    const team = await newTeam("  Writers ", [alice.userId]);
    expect(team).toMatchObject({ object: "team", title: "Writers", members: 1, spaces: 0, permissions: { admin: true, view: true } });

    const asAlice = (await orgs(alice).getTeamInOrganizationById(org.organizationId, team.id)).data;
    expect(asAlice).toMatchObject({ id: team.id, members: 1, permissions: { admin: false, view: true } });
    expect((await orgs(bob).listTeamsInOrganizationById(org.organizationId)).data.items.map((item) => item.id)).toEqual([team.id]);

    // Only admins create; guests see no teams; another organization's team does not exist.
    expect((await call(stack, "PUT", teamPath(), { token: alice.token, json: { title: "Mine" } })).status).toBe(403);
    expect((await call(stack, "GET", teamPath(), { token: guest.token })).status).toBe(403);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/orgs/${other.organizationId}/teams/${team.id}`, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", teamPath(team.id), { token: other.owner.token })).status).toBe(404);

    // Titles are 1 to 64 characters; members must be members.
    expect((await call(stack, "PUT", teamPath(), { token: org.owner.token, json: { title: "x".repeat(65) } })).status).toBe(400);
    const stranger = await call(stack, "PUT", teamPath(), { token: org.owner.token, json: { title: "Strangers", members: [other.owner.userId] } });
    expect([stranger.status, stranger.body.error.message]).toEqual([400, `members[0]: "${other.owner.userId}" is not a member of the organization`]);

    const renamed = (await orgs(org.owner).updateTeamInOrganizationById(org.organizationId, team.id, { title: "Authors" })).data;
    expect(renamed.title).toBe("Authors");
    expect((await call(stack, "PATCH", teamPath(team.id), { token: alice.token, json: { title: "Nope" } })).status).toBe(403);

    expect((await call(stack, "DELETE", teamPath(team.id), { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "DELETE", teamPath(team.id), { token: org.owner.token })).status).toBe(204);
    expect((await call(stack, "GET", teamPath(team.id), { token: org.owner.token })).status).toBe(404);
  });

  it("filters by title and by the teams a member can manage, and pages", async () => {
    const writers = await newTeam("Writers");
    const reviewers = await newTeam("Reviewers");
    const readers = await newTeam("Readers");
    const titles = async (query: Record<string, string | number>) => (await orgs(org.owner).listTeamsInOrganizationById(org.organizationId, query)).data;

    expect((await titles({ title: "RE" })).items.map((team) => team.title)).toEqual(["Reviewers", "Readers"]);
    await orgs(org.owner).addMemberToOrganizationTeamById(org.organizationId, writers.id, alice.userId, { role: "owner" as never });
    await orgs(org.owner).addMemberToOrganizationTeamById(org.organizationId, reviewers.id, alice.userId, {});
    expect((await titles({ owner: alice.userId })).items.map((team) => team.id)).toEqual([writers.id]);
    expect((await titles({ owner: org.owner.userId })).items.map((team) => team.id)).toEqual([writers.id, reviewers.id, readers.id]);

    const first = await titles({ limit: 2 });
    expect([first.items.length, first.count]).toEqual([2, 3]);
    const second = await titles({ limit: 2, page: first.next!.page });
    expect(second.items.map((team) => team.id)).toEqual([readers.id]);
    expect(second.next).toBeUndefined();
  });

  it("let admins and the team's owners manage members, one at a time or in bulk, all or nothing", async () => {
    const team = await newTeam("Writers");
    await orgs(org.owner).addMemberToOrganizationTeamById(org.organizationId, team.id, alice.userId, { role: "owner" as never });
    // Alice owns the team: she manages its members, not its title's organization-wide siblings.
    const asOwner = await call(stack, "PUT", `${teamPath(team.id)}/members`, {
      token: alice.token,
      json: { add: [bob.email], memberships: { [alice.userId]: { role: "owner" } } },
    });
    expect(asOwner.status).toBe(204);
    const members = (await orgs(alice).listTeamMembersInOrganizationById(org.organizationId, team.id)).data;
    expect(members.items.map((item) => [item.organization.user.id, item.team.role])).toEqual([
      [alice.userId, "owner"],
      [bob.userId, "member"],
    ]);
    expect(members.items[0]!.permissions.view).toBe(true);
    expect((await call(stack, "PUT", `${teamPath(team.id)}/members/${alice.userId}`, { token: bob.token, json: { role: "member" } })).status).toBe(403);

    // A user both added and removed is removed; an unknown e-mail fails the whole request.
    const unknown = await call(stack, "PUT", `${teamPath(team.id)}/members`, {
      token: org.owner.token,
      json: { add: [guest.userId, "nobody@example.com"], remove: [bob.userId] },
    });
    expect([unknown.status, unknown.body.error.message]).toEqual([400, 'add[1]: "nobody@example.com" is not a member of the organization']);
    expect((await orgs(org.owner).getTeamInOrganizationById(org.organizationId, team.id)).data.members).toBe(2);
    expect(
      (await call(stack, "PUT", `${teamPath(team.id)}/members`, { token: org.owner.token, json: { add: [guest.userId], remove: [guest.userId, bob.userId] } }))
        .status,
    ).toBe(204);
    expect((await orgs(org.owner).listTeamMembersInOrganizationById(org.organizationId, team.id)).data.items.map((item) => item.organization.user.id)).toEqual([
      alice.userId,
    ]);

    expect((await call(stack, "DELETE", `${teamPath(team.id)}/members/${alice.userId}`, { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "DELETE", `${teamPath(team.id)}/members/${alice.userId}`, { token: org.owner.token })).status).toBe(204);
    expect((await call(stack, "PUT", `${teamPath(team.id)}/members/${guest.userId}`, { token: org.owner.token, json: { role: "admin" } })).status).toBe(400);
  });

  it("count in members and list a member's teams with their role", async () => {
    const writers = await newTeam("Writers", [alice.userId]);
    const reviewers = await newTeam("Reviewers");
    await orgs(org.owner).addMemberToOrganizationTeamById(org.organizationId, reviewers.id, alice.userId, { role: "owner" as never });
    expect((await orgs(org.owner).getMemberInOrganizationById(org.organizationId, alice.userId)).data.teams).toBe(2);
    const listed = (await orgs(org.owner).listMembersInOrganizationById(org.organizationId)).data.items.find((member) => member.id === alice.userId);
    expect(listed?.teams).toBe(2);

    const teams = (await orgs(bob).listTeamsForOrganizationMember(org.organizationId, alice.userId)).data;
    expect(teams.items.map((item) => [item.team.id, item.member.role])).toEqual([
      [writers.id, "member"],
      [reviewers.id, "owner"],
    ]);
    expect(
      (await orgs(bob).listTeamsForOrganizationMember(org.organizationId, alice.userId, { title: "writ" })).data.items.map((item) => item.team.id),
    ).toEqual([writers.id]);

    // Leaving the organization is leaving its teams.
    await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/members/${alice.userId}`, { token: org.owner.token });
    expect((await orgs(org.owner).getTeamInOrganizationById(org.organizationId, writers.id)).data.members).toBe(0);
  });
});

describe("teams seen by a guest", () => {
  it("answer every team route alike for a real team and an invented id, so a guest cannot probe which exist", async () => {
    const team = await newTeam("Hidden", [alice.userId]);
    const invented = randomUUID();
    const routes: { method: string; path: (teamId: string) => string; json?: unknown }[] = [
      { method: "GET", path: (id) => teamPath(id) },
      { method: "PATCH", path: (id) => teamPath(id), json: { title: "Renamed" } },
      { method: "DELETE", path: (id) => teamPath(id) },
      { method: "GET", path: (id) => `${teamPath(id)}/members` },
      { method: "PUT", path: (id) => `${teamPath(id)}/members`, json: { add: [guest.userId] } },
      { method: "PUT", path: (id) => `${teamPath(id)}/members/${guest.userId}`, json: { role: "member" } },
      { method: "DELETE", path: (id) => `${teamPath(id)}/members/${alice.userId}` },
    ];
    for (const route of routes) {
      const real = await call(stack, route.method, route.path(team.id), { token: guest.token, json: route.json });
      const fake = await call(stack, route.method, route.path(invented), { token: guest.token, json: route.json });
      const label = `${route.method} ${route.path(":teamId")}`;
      expect([label, real.status, real.body?.error?.message]).toEqual([label, fake.status, fake.body?.error?.message]);
      expect([label, real.status]).toEqual([label, 403]);
    }
    // Nothing changed.
    const after = (await orgs(org.owner).getTeamInOrganizationById(org.organizationId, team.id)).data;
    expect([after.title, after.members]).toEqual(["Hidden", 1]);
  });
});

describe("team permissions", () => {
  it("let a member read a private space through a team's grant, and stop within seconds of leaving the team", async () => {
    const space = await createSpace(stack, org, { title: "Roadmap" });
    await call(stack, "PATCH", `/v1/spaces/${space.id}`, { token: org.owner.token, json: { defaultLevel: null } });
    expect((await call(stack, "GET", `/v1/spaces/${space.id}`, { token: bob.token })).status).toBe(404);
    const team = await newTeam("Planners", [bob.userId]);

    // Only admins of the space grant; the team must be the organization's.
    expect((await call(stack, "PATCH", `/v1/spaces/${space.id}/permissions/teams/${team.id}`, { token: alice.token, json: { role: "read" } })).status).toBe(
      404,
    );
    const other = await createOrganization(stack);
    const foreign = (await orgs(other.owner).createOrganizationTeam(other.organizationId, { title: "Foreign" })).data;
    expect(
      (await call(stack, "PATCH", `/v1/spaces/${space.id}/permissions/teams/${foreign.id}`, { token: org.owner.token, json: { role: "read" } })).status,
    ).toBe(404);
    expect((await call(stack, "PATCH", `/v1/spaces/${space.id}/permissions/teams/${team.id}`, { token: org.owner.token, json: { role: "edit" } })).status).toBe(
      204,
    );

    const listed = (await org.owner.api.spaces.listTeamPermissionsInSpace(space.id)).data;
    expect(listed.items.map((item) => [item.team.id, item.permission, item.team.spaces])).toEqual([[team.id, "edit", 1]]);
    expect((await orgs(org.owner).getTeamInOrganizationById(org.organizationId, team.id)).data.spaces).toBe(1);

    // Bob reads and edits it (his role is read, the team's grant is edit), and lists it.
    const seen = await call(stack, "GET", `/v1/spaces/${space.id}`, { token: bob.token });
    expect([seen.status, seen.body.permissions.edit]).toEqual([200, true]);
    const bobsSpaces = (await bob.api.orgs.listSpacesInOrganizationById(org.organizationId)).data.items.map((item) => item.id);
    expect(bobsSpaces).toContain(space.id);

    // Leaving the team (identity's event reaches content) takes it away.
    expect((await call(stack, "DELETE", `${teamPath(team.id)}/members/${bob.userId}`, { token: org.owner.token })).status).toBe(205);
    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${space.id}`, { token: bob.token })).status === 404, 10_000);

    expect((await call(stack, "DELETE", `/v1/spaces/${space.id}/permissions/teams/${team.id}`, { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "DELETE", `/v1/spaces/${space.id}/permissions/teams/${team.id}`, { token: org.owner.token })).status).toBe(204);
  });

  it("reach everything inside a granted collection, guests in the team included", async () => {
    const collection = await createCollection(stack, org, { title: "Private" });
    await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: org.owner.token, json: { defaultLevel: null } });
    const inside = await createSpace(stack, org, { title: "Inside", parent: collection.id });
    const team = await newTeam("Insiders", [guest.userId, bob.userId]);
    expect(
      (await call(stack, "PATCH", `/v1/collections/${collection.id}/permissions/teams/${team.id}`, { token: org.owner.token, json: { role: "comment" } }))
        .status,
    ).toBe(204);
    expect((await org.owner.api.collections.listTeamPermissionsInCollection(collection.id)).data.items.map((item) => item.permission)).toEqual(["comment"]);

    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: guest.token })).status === 200, 10_000);
    const asGuest = await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: guest.token });
    expect([asGuest.body.permissions.comment, asGuest.body.permissions.edit]).toEqual([true, false]);
    expect((await call(stack, "GET", `/v1/collections/${collection.id}`, { token: bob.token })).status).toBe(200);

    // Deleting the team takes its grants away.
    expect((await call(stack, "DELETE", teamPath(team.id), { token: org.owner.token })).status).toBe(205);
    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: guest.token })).status === 404, 10_000);
    expect((await org.owner.api.collections.listTeamPermissionsInCollection(collection.id)).data.items).toEqual([]);
  });
});

describe("user permissions", () => {
  it("let a guest granted read on one space see it and nothing else, until the grant is changed and removed", async () => {
    const granted = await createSpace(stack, org, { title: "Shared" });
    const other = await createSpace(stack, org, { title: "Internal" });
    expect((await call(stack, "GET", `/v1/spaces/${granted.id}`, { token: guest.token })).status).toBe(404);

    expect((await org.owner.api.spaces.inviteToSpace(granted.id, { users: [guest.userId], role: role("read") })).status).toBe(204);
    const listed = (await org.owner.api.spaces.listUserPermissionsInSpace(granted.id)).data.items;
    expect(listed.map((item) => [item.user.id, item.permission])).toEqual([[guest.userId, "read"]]);

    // The guest lists and reads that space only, and may not write it.
    const theirs = (await guest.api.orgs.listSpacesInOrganizationById(org.organizationId)).data.items.map((item) => item.id);
    expect(theirs).toEqual([granted.id]);
    const seen = (await guest.api.spaces.getSpaceById(granted.id)).data;
    expect([seen.permissions.view, seen.permissions.edit]).toEqual([true, false]);
    expect((await call(stack, "PATCH", `/v1/spaces/${granted.id}`, { token: guest.token, json: { title: "Mine" } })).status).toBe(403);
    expect((await call(stack, "GET", `/v1/spaces/${other.id}`, { token: guest.token })).status).toBe(404);

    // A grant adds to a member's role, never takes away: bob (read) granted edit edits; alice (edit) granted read still edits.
    await org.owner.api.spaces.inviteToSpace(granted.id, { users: [bob.userId, alice.userId], role: role("read") });
    await org.owner.api.spaces.updateUserPermissionInSpace(granted.id, bob.userId, { role: role("edit") });
    expect((await bob.api.spaces.getSpaceById(granted.id)).data.permissions.edit).toBe(true);
    expect((await alice.api.spaces.getSpaceById(granted.id)).data.permissions.edit).toBe(true);

    // Changed, then removed (205), then absent (204).
    expect((await org.owner.api.spaces.updateUserPermissionInSpace(granted.id, guest.userId, { role: role("comment") })).status).toBe(204);
    expect((await guest.api.spaces.getSpaceById(granted.id)).data.permissions.comment).toBe(true);
    expect((await org.owner.api.spaces.removeUserFromSpace(granted.id, guest.userId)).status).toBe(205);
    expect((await call(stack, "DELETE", `/v1/spaces/${granted.id}/permissions/users/${guest.userId}`, { token: org.owner.token })).status).toBe(204);
    expect((await call(stack, "GET", `/v1/spaces/${granted.id}`, { token: guest.token })).status).toBe(404);
    // role null takes a grant away too.
    await org.owner.api.spaces.updateUserPermissionInSpace(granted.id, bob.userId, { role: null });
    expect((await org.owner.api.spaces.listUserPermissionsInSpace(granted.id)).data.items.map((item) => item.user.id)).toEqual([alice.userId]);
  });

  it("reach everything inside a granted collection, and the aggregate names where each level comes from", async () => {
    const collection = await createCollection(stack, org, { title: "Private" });
    await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: org.owner.token, json: { defaultLevel: null } });
    const inside = await createSpace(stack, org, { title: "Inside", parent: collection.id });
    const team = await newTeam("Reviewers", [alice.userId]);

    expect((await org.owner.api.collections.inviteToCollection(collection.id, { users: [bob.userId], role: role("edit") })).status).toBe(204);
    expect((await org.owner.api.spaces.inviteToSpace(inside.id, { teams: [team.id], role: role("comment") })).status).toBe(204);
    expect((await org.owner.api.collections.listUserPermissionsInCollection(collection.id)).data.items.map((item) => [item.user.id, item.permission])).toEqual([
      [bob.userId, "edit"],
    ]);

    // Bob's collection grant reaches the space inside; the guest, granted nothing, sees neither.
    expect((await bob.api.spaces.getSpaceById(inside.id)).data.permissions.edit).toBe(true);
    expect((await bob.api.collections.getCollectionById(collection.id)).data.id).toBe(collection.id);
    expect((await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: guest.token })).status).toBe(404);

    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: alice.token })).status === 200, 10_000);
    const aggregate = (await org.owner.api.spaces.listPermissionsAggregateInSpace(inside.id)).data.items;
    const byUser = new Map(aggregate.map((item) => [item.user.id, item]));
    expect(byUser.get(org.owner.userId)).toMatchObject({ permission: "admin", origin: { type: "organization", organization: org.organizationId } });
    expect(byUser.get(bob.userId)).toMatchObject({ permission: "edit", origin: { type: "collection", collection: collection.id, reason: "member" } });
    expect(byUser.get(alice.userId)).toMatchObject({ permission: "comment", origin: { type: "space", space: inside.id, reason: "team", team: team.id } });
    expect(byUser.has(guest.userId)).toBe(false);
    const editors = (await org.owner.api.spaces.listPermissionsAggregateInSpace(inside.id, { role: role("edit") })).data.items;
    expect(editors.map((item) => item.user.id)).toEqual([bob.userId]);
    const onCollection = (await org.owner.api.collections.listPermissionsAggregateInCollection(collection.id)).data.items;
    expect(onCollection.map((item) => item.user.id).sort()).toEqual([org.owner.userId, bob.userId].sort());

    expect((await org.owner.api.collections.updateUserPermissionInCollection(collection.id, bob.userId, { role: role("read") })).status).toBe(204);
    expect((await bob.api.spaces.getSpaceById(inside.id)).data.permissions.edit).toBe(false);
    expect((await org.owner.api.collections.removeUserFromCollection(collection.id, bob.userId)).status).toBe(205);
    expect((await call(stack, "GET", `/v1/spaces/${inside.id}`, { token: bob.token })).status).toBe(404);
  });

  it("refuse other organizations (404), members without admin on the item (403, 404 when they cannot see it), non-members (404) and bad bodies (400)", async () => {
    const space = await createSpace(stack, org, { title: "Open" });
    const collection = await createCollection(stack, org, { title: "Closed" });
    await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: org.owner.token, json: { defaultLevel: null } });
    const stranger = await createOrganization(stack);
    const routes = (base: string): { method: string; path: string; json?: unknown }[] => [
      { method: "POST", path: `${base}/permissions`, json: { users: [bob.userId], role: "read" } },
      { method: "GET", path: `${base}/permissions/users` },
      { method: "PATCH", path: `${base}/permissions/users/${bob.userId}`, json: { role: "read" } },
      { method: "DELETE", path: `${base}/permissions/users/${bob.userId}` },
      { method: "GET", path: `${base}/permissions/aggregate` },
    ];
    for (const route of [...routes(`/v1/spaces/${space.id}`), ...routes(`/v1/collections/${collection.id}`)]) {
      const label = `${route.method} ${route.path}`;
      const foreign = await call(stack, route.method, route.path, { token: stranger.owner.token, json: route.json });
      expect([label, foreign.status]).toEqual([label, 404]);
    }
    // Alice (edit) sees the space: she reads its direct grants but manages none; the closed collection is not found.
    for (const route of routes(`/v1/spaces/${space.id}`)) {
      const label = `${route.method} ${route.path}`;
      const answer = await call(stack, route.method, route.path, { token: alice.token, json: route.json });
      expect([label, answer.status]).toEqual([label, route.method === "GET" && route.path.endsWith("/users") ? 200 : 403]);
    }
    for (const route of routes(`/v1/collections/${collection.id}`)) {
      const answer = await call(stack, route.method, route.path, { token: alice.token, json: route.json });
      expect([`${route.method} ${route.path}`, answer.status]).toEqual([`${route.method} ${route.path}`, 404]);
    }

    // A guest made admin of the space manages its grants, but lists no members of the organization (403), as everywhere.
    await org.owner.api.spaces.inviteToSpace(space.id, { users: [guest.userId], role: role("admin") });
    expect((await guest.api.spaces.updateUserPermissionInSpace(space.id, bob.userId, { role: role("read") })).status).toBe(204);
    expect((await call(stack, "GET", `/v1/spaces/${space.id}/permissions/aggregate`, { token: guest.token })).status).toBe(403);
    await org.owner.api.spaces.removeUserFromSpace(space.id, guest.userId);
    await org.owner.api.spaces.removeUserFromSpace(space.id, bob.userId);

    // A user of another organization is not found, named by its place in the body.
    const outsider = await call(stack, "POST", `/v1/spaces/${space.id}/permissions`, {
      token: org.owner.token,
      json: { users: [bob.userId, stranger.owner.userId], role: "read" },
    });
    expect([outsider.status, outsider.body.error.message]).toEqual([404, expect.stringMatching(/users\[1\]/)]);
    expect(
      (await call(stack, "PATCH", `/v1/spaces/${space.id}/permissions/users/${stranger.owner.userId}`, { token: org.owner.token, json: { role: "read" } }))
        .status,
    ).toBe(404);
    // Nothing was granted by the refused invite.
    expect((await org.owner.api.spaces.listUserPermissionsInSpace(space.id)).data.items).toEqual([]);

    const bad: [unknown, RegExp][] = [
      [{ role: "read" }, /users or teams/],
      [{ users: [], role: "read" }, /users/],
      [{ users: [bob.userId], role: "owner" }, /role/],
      [{ users: [bob.userId] }, /role/],
    ];
    for (const [json, message] of bad) {
      const answer = await call(stack, "POST", `/v1/spaces/${space.id}/permissions`, { token: org.owner.token, json });
      expect([JSON.stringify(json), answer.status, answer.body.error.message]).toEqual([JSON.stringify(json), 400, expect.stringMatching(message)]);
    }
    const badRole = await call(stack, "PATCH", `/v1/spaces/${space.id}/permissions/users/${bob.userId}`, { token: org.owner.token, json: { role: "owner" } });
    expect([badRole.status, badRole.body.error.message]).toEqual([400, expect.stringMatching(/^role: /)]);
    const badFilter = await call(stack, "GET", `/v1/spaces/${space.id}/permissions/aggregate?role=owner`, { token: org.owner.token });
    expect([badFilter.status, badFilter.body.error.message]).toEqual([400, expect.stringMatching(/role/)]);
  });
});
