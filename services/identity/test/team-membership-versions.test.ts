import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PutTeamMemberRequest } from "@imprint/proto/identity/v1/teams";
import { createMember, createOrganization, eventually, readEvents } from "@imprint/runtime/testing";
import type { EventEnvelope } from "@imprint/runtime";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/**
 * The organization's team-membership version that identity's team events carry (what content
 * orders its copy of team memberships by): +1 per changing transaction, shared by its events,
 * in commit order even for concurrent changes, and ListTeamMemberships answers the memberships
 * as of the version it names.
 */
let identity: TestIdentity;
beforeAll(async () => {
  identity = await startTestIdentity();
});
afterAll(() => identity?.stop());

const TEAM_EVENTS = new Set(["team_member.added", "team_member.removed", "team.deleted", "member.removed"]);

async function teamEvents(organizationId: string, count: number): Promise<EventEnvelope[]> {
  return eventually(async () => {
    const found = (await readEvents("identity", { organizationId })).filter((event) => TEAM_EVENTS.has(event.type));
    return found.length >= count ? found : undefined;
  }, 10_000);
}

describe("team-membership versions", () => {
  it("grow by one per change, shared by the events of one transaction", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const [ann, bob] = [await createMember(identity.clients, organizationId), await createMember(identity.clients, organizationId)];
    const caller = owner.caller;
    const { team } = await identity.client.teams.createTeam({ caller, organizationId, title: "Writers", memberUserIds: [ann.userId, bob.userId] });
    const { team: other } = await identity.client.teams.createTeam({ caller, organizationId, title: "Readers", memberUserIds: [ann.userId] });
    expect(await identity.client.teams.listTeamMemberships({ organizationId })).toEqual({
      memberships: [
        { teamId: team!.id, userId: ann.userId },
        { teamId: team!.id, userId: bob.userId },
        { teamId: other!.id, userId: ann.userId },
      ].sort((a, b) => a.teamId.localeCompare(b.teamId) || a.userId.localeCompare(b.userId)),
      membershipVersion: 2,
      teamIds: [team!.id, other!.id].sort(),
    });
    await identity.client.members.removeMember({ caller, organizationId, userId: ann.userId });
    await identity.client.teams.deleteTeam({ caller, organizationId, teamId: team!.id });

    const events = await teamEvents(organizationId, 7);
    expect(events.map((event) => [event.type, event.payload.membershipVersion])).toEqual([
      ["team_member.added", 1],
      ["team_member.added", 1],
      ["team_member.added", 2],
      ["member.removed", 3],
      ["team_member.removed", 3],
      ["team_member.removed", 3],
      ["team.deleted", 4],
    ]);
    expect(await identity.client.teams.listTeamMemberships({ organizationId })).toEqual({ memberships: [], membershipVersion: 4, teamIds: [other!.id] });
  });

  it("follow commit order for concurrent changes of one organization", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const { team } = await identity.client.teams.createTeam({ caller: owner.caller, organizationId, title: "Crowd", memberUserIds: [] });
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createMember(identity.clients, organizationId)));
    await Promise.all(
      users.map((user) =>
        identity.client.teams.putTeamMember(PutTeamMemberRequest.fromPartial({ caller: owner.caller, organizationId, teamId: team!.id, userId: user.userId })),
      ),
    );
    const events = await teamEvents(organizationId, users.length);
    // Each change its own version (the row lock serializes them), none lost or shared.
    expect(events.map((event) => event.payload.membershipVersion as number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await identity.client.teams.listTeamMemberships({ organizationId })).membershipVersion).toBe(6);
  });

  it("answer an empty list for an unknown organization", async () => {
    expect(await identity.client.teams.listTeamMemberships({ organizationId: "00000000-0000-4000-8000-000000000000" })).toEqual({
      memberships: [],
      membershipVersion: 0,
      teamIds: [],
    });
  });
});
