import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { PutTeamMemberRequest } from "@imprint/proto/identity/v1/teams";
import { AppError, type EventEnvelope } from "@imprint/runtime";
import {
  createMember,
  createOrganization,
  deliverInPlan,
  deliveryPlans,
  eventually,
  readEvents,
  testLogger,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import { teamMembershipsConsumer } from "../src/consumers/team-memberships.js";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/**
 * Publishing's copy of who is in which team (for sites' team grants) converges whatever the
 * delivery of identity's events: a removal that arrives before the add it follows, or a stale add
 * redelivered after the removal, grants nothing; shuffled, duplicated and held-back deliveries end
 * where in-order delivery does, equal to identity's memberships.
 */
let harness: PublishingHarness;
let org: TestOrganization;
const logger = testLogger("publishing-team-memberships");
const handler = teamMembershipsConsumer("publishing-team-memberships-test").handler;
const TEAM_EVENTS = new Set(["team_member.added", "team_member.removed", "team.deleted", "member.removed"]);

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

/** Applies events one by one through the consumer's handler, each in a transaction of its own, as the runtime does. */
async function apply(events: readonly EventEnvelope[]): Promise<void> {
  for (const event of events) await harness.publishing.orm.em.fork().transactional((em) => handler(event, { em, attempt: 1, logger }));
}

/** The copy's members by team ("team/user", sorted), teams named back with `nameOf`. */
async function copyOf(organizationId: string, nameOf: (teamId: string) => string = (id) => id): Promise<string[]> {
  const rows = await harness.publishing.orm.em
    .fork()
    .execute<{ team_id: string; user_id: string }[]>(`select team_id, user_id from team_memberships where organization_id = ? and present`, [organizationId]);
  return rows.map((row) => `${nameOf(row.team_id)}/${row.user_id}`).sort();
}

async function identityTruth(organizationId: string): Promise<string[]> {
  const snapshot = await harness.identity.teams.listTeamMemberships({ organizationId });
  return snapshot.memberships.map((row) => `${row.teamId}/${row.userId}`).sort();
}

/** Events re-addressed to a fresh organization and fresh team ids, so each delivery builds a copy of its own. */
function readdressed(events: readonly EventEnvelope[]): { events: EventEnvelope[]; organizationId: string; teamOf: Map<string, string> } {
  const organizationId = randomUUID();
  const teamOf = new Map<string, string>();
  const fresh = (teamId: unknown) => {
    if (typeof teamId !== "string") return teamId;
    if (!teamOf.has(teamId)) teamOf.set(teamId, randomUUID());
    return teamOf.get(teamId)!;
  };
  return {
    organizationId,
    teamOf,
    events: events.map((event) => ({
      ...event,
      organizationId,
      payload: { ...event.payload, ...(event.payload.teamId ? { teamId: fresh(event.payload.teamId) } : {}) },
    })),
  };
}

async function newSite(title: string): Promise<string> {
  const { site } = await harness.sites.createSite({
    caller: org.owner.caller,
    organizationId: org.organizationId,
    title,
    spaceIds: [],
    type: "",
    visibility: "",
  });
  return site!.id;
}

const sees = (user: TestUser, siteId: string) =>
  harness.sites.getSite({ caller: user.caller, organizationId: org.organizationId, siteId }).then(
    () => true,
    (error: unknown) => {
      if (error instanceof AppError && error.code === "not_found") return false;
      throw error;
    },
  );

describe("publishing's copy of team memberships", () => {
  it("gives a guest a team's site grant while in the team, and never back through a stale add", async () => {
    const guest = await createMember(harness, org.organizationId, { role: "guest" });
    const siteId = await newSite("Team site");
    const since = new Date();
    const caller = org.owner.caller;
    const { team } = await harness.identity.teams.createTeam({ caller, organizationId: org.organizationId, title: "Readers", memberUserIds: [guest.userId] });
    await harness.sitePermissions.updateSiteTeamPermission({
      caller,
      organizationId: org.organizationId,
      siteId,
      teamId: team!.id,
      role: MemberRole.MEMBER_ROLE_READ,
    });
    await eventually(async () => expect(await sees(guest, siteId)).toBe(true));
    await harness.identity.teams.removeTeamMember({ caller, organizationId: org.organizationId, teamId: team!.id, userId: guest.userId });
    await eventually(async () => expect(await sees(guest, siteId)).toBe(false));
    const events = await eventually(async () => {
      const found = (await readEvents("identity", { organizationId: org.organizationId, since })).filter((event) => TEAM_EVENTS.has(event.type));
      expect(found.map((event) => event.type)).toEqual(["team_member.added", "team_member.removed"]);
      return found;
    });
    // The older `added` redelivered (a new event id: handled, not deduplicated) after the removal.
    await apply([{ ...events[0]!, id: randomUUID() }]);
    expect(await sees(guest, siteId)).toBe(false);

    // A removal that arrives before its add (another copy of the events, in a fresh organization).
    const reversed = readdressed(events);
    await apply([...reversed.events].reverse());
    expect(await copyOf(reversed.organizationId)).toEqual([]);
  });

  it("takes a removed member's own grants and a deleted team's grants away", async () => {
    const reader = await createMember(harness, org.organizationId, { role: "guest" });
    const siteId = await newSite("Shared");
    const caller = org.owner.caller;
    const organizationId = org.organizationId;
    const { team } = await harness.identity.teams.createTeam({ caller, organizationId, title: "Doomed", memberUserIds: [] });
    await harness.sitePermissions.inviteToSite({
      caller,
      organizationId,
      siteId,
      userIds: [reader.userId],
      teamIds: [team!.id],
      role: MemberRole.MEMBER_ROLE_EDIT,
    });
    const users = async () => (await harness.sitePermissions.listSiteUserPermissions({ caller, organizationId, siteId })).permissions.map((p) => p.userId);
    const teams = async () => (await harness.sitePermissions.listSiteTeamPermissions({ caller, organizationId, siteId })).permissions.map((p) => p.teamId);
    expect([await users(), await teams()]).toEqual([[reader.userId], [team!.id]]);
    await harness.identity.members.removeMember({ caller, organizationId, userId: reader.userId });
    await harness.identity.teams.deleteTeam({ caller, organizationId, teamId: team!.id });
    await eventually(async () => expect([await users(), await teams()]).toEqual([[], []]));
  });

  it("ends equal to identity's under any order, duplication and delay of identity's events", async () => {
    type Operation =
      | { op: "put" | "remove"; team: number; user: number }
      | { op: "deleteTeam"; team: number }
      | { op: "removeMember" | "readdMember"; user: number };
    const index = fc.nat({ max: 5 });
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      fc.record({ op: fc.constantFrom("put" as const, "remove" as const), team: index, user: index }),
      fc.record({ op: fc.constant("deleteTeam" as const), team: index }),
      fc.record({ op: fc.constantFrom("removeMember" as const, "readdMember" as const), user: index }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), deliveryPlans(60), async (operations, plan) => {
        const since = new Date();
        const run = await createOrganization(harness);
        const caller = run.owner.caller;
        const organizationId = run.organizationId;
        const users = [await createMember(harness, organizationId), await createMember(harness, organizationId, { role: "guest" })];
        const teams = [
          (await harness.identity.teams.createTeam({ caller, organizationId, title: "A", memberUserIds: [users[0]!.userId] })).team!.id,
          (await harness.identity.teams.createTeam({ caller, organizationId, title: "B", memberUserIds: [users[1]!.userId] })).team!.id,
        ];
        for (const step of operations) {
          try {
            if (step.op === "put" || step.op === "remove") {
              const request = { caller, organizationId, teamId: teams[step.team % 2]!, userId: users[step.user % 2]!.userId };
              if (step.op === "put") await harness.identity.teams.putTeamMember(PutTeamMemberRequest.fromPartial(request));
              else await harness.identity.teams.removeTeamMember(request);
            } else if (step.op === "deleteTeam") await harness.identity.teams.deleteTeam({ caller, organizationId, teamId: teams[step.team % 2]! });
            else if (step.op === "removeMember") await harness.identity.members.removeMember({ caller, organizationId, userId: users[step.user % 2]!.userId });
            else await createMember(harness, organizationId, { email: users[step.user % 2]!.email, role: "read" });
          } catch (error) {
            // Refused by identity (a deleted team, a user no longer a member): nothing happened, no event.
            if (!(error instanceof AppError) || !["not_found", "invalid_argument"].includes(error.code)) throw error;
          }
        }
        const sentinel = `sentinel-${randomUUID()}`;
        await harness.identity.teams.createTeam({ caller, organizationId, title: sentinel, memberUserIds: [] });
        const events = await eventually(async () => {
          const found = await readEvents("identity", { organizationId, since });
          expect(found.some((event) => event.type === "team.created" && event.payload.title === sentinel)).toBe(true);
          return found.filter((event) => TEAM_EVENTS.has(event.type));
        });
        const truth = await identityTruth(organizationId);
        for (const delivered of [events, deliverInPlan(events, plan)]) {
          const copy = readdressed(delivered);
          await apply(copy.events);
          const original = new Map([...copy.teamOf].map(([teamId, fresh]) => [fresh, teamId]));
          expect(await copyOf(copy.organizationId, (id) => original.get(id)!)).toEqual(truth);
        }
      }),
      { numRuns: 8, endOnFailure: true },
    );
  });
});
