import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMember,
  createOrganization,
  createSpace,
  eventually,
  readEvents,
  testClient,
  testLogger,
  type TestOrganization,
  type TestUser,
  deliverInPlan,
  deliveryPlans,
  runNodeScriptJson,
} from "@imprint/runtime/testing";
import { AppError, type EventEnvelope, type PromiseClient } from "@imprint/runtime";
import { PutTeamMemberRequest, UpdateTeamMembersRequest } from "@imprint/proto/identity/v1/teams";
import { TeamPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { teamMembershipsConsumer } from "../src/access/index.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * Content's copy of team memberships converges whatever the delivery: random team operations run
 * on the real identity service; identity's events of them (read from the stream) are then fed to
 * content's consumer handler shuffled, duplicated and with some held back to the end, and the copy
 * must equal the one in-order delivery gives, and identity's own memberships. The running content
 * service (the real consumer on NATS) must reach the same. Then the reconciliation repairs a copy
 * corrupted by hand.
 */
let harness: ContentHarness;
let permissions: PromiseClient<typeof TeamPermissionServiceService>;
const logger = testLogger("team-memberships-property");
const handler = teamMembershipsConsumer("property-test").handler;

beforeAll(async () => {
  harness = await startContentHarness();
  permissions = testClient(TeamPermissionServiceService, harness.contentAddress);
});
afterAll(async () => {
  permissions?.close();
  await harness?.stop();
});

const TEAM_EVENTS = new Set(["team_member.added", "team_member.removed", "team.deleted", "member.removed"]);

/** One operation on identity, by indexes into the run's teams and users (taken modulo how many there are). */
type Operation =
  | { op: "createTeam"; users: number[] }
  | { op: "put"; team: number; user: number }
  | { op: "remove"; team: number; user: number }
  | { op: "bulk"; team: number; add: number[]; remove: number[] }
  | { op: "deleteTeam"; team: number }
  | { op: "removeMember"; user: number }
  | { op: "readdMember"; user: number };

const index = fc.nat({ max: 7 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ op: fc.constant("createTeam" as const), users: fc.array(index, { maxLength: 3 }) }),
  fc.record({ op: fc.constant("put" as const), team: index, user: index }),
  fc.record({ op: fc.constant("put" as const), team: index, user: index }),
  fc.record({ op: fc.constant("remove" as const), team: index, user: index }),
  fc.record({ op: fc.constant("bulk" as const), team: index, add: fc.array(index, { maxLength: 2 }), remove: fc.array(index, { maxLength: 2 }) }),
  fc.record({ op: fc.constant("deleteTeam" as const), team: index }),
  fc.record({ op: fc.constant("removeMember" as const), user: index }),
  fc.record({ op: fc.constant("readdMember" as const), user: index }),
);

/** Events a delivery plan covers (a longer history reuses it cyclically). */
const MAX_EVENTS = 160;
const delivery = deliveryPlans(MAX_EVENTS);
/** Runs the operations on identity; those it refuses (on a deleted team, for a user no longer a member) change nothing and are skipped. */
async function runOperations(org: TestOrganization, users: TestUser[], operations: readonly Operation[]): Promise<void> {
  const caller = org.owner.caller;
  const organizationId = org.organizationId;
  const teams: string[] = [];
  const team = (i: number) => teams[i % Math.max(teams.length, 1)];
  const user = (i: number) => users[i % users.length]!;
  for (const operation of operations) {
    try {
      switch (operation.op) {
        case "createTeam": {
          const created = await harness.identity.teams.createTeam({
            caller,
            organizationId,
            title: `T${teams.length}`,
            memberUserIds: [...new Set(operation.users.map((i) => user(i).userId))],
          });
          teams.push(created.team!.id);
          break;
        }
        case "put":
          if (team(operation.team))
            await harness.identity.teams.putTeamMember(
              PutTeamMemberRequest.fromPartial({ caller, organizationId, teamId: team(operation.team), userId: user(operation.user).userId }),
            );
          break;
        case "remove":
          if (team(operation.team))
            await harness.identity.teams.removeTeamMember({ caller, organizationId, teamId: team(operation.team)!, userId: user(operation.user).userId });
          break;
        case "bulk":
          if (team(operation.team)) {
            await harness.identity.teams.updateTeamMembers(
              UpdateTeamMembersRequest.fromPartial({
                caller,
                organizationId,
                teamId: team(operation.team),
                add: operation.add.map((i) => user(i).userId),
                remove: operation.remove.map((i) => user(i).userId),
              }),
            );
          }
          break;
        case "deleteTeam":
          if (team(operation.team)) await harness.identity.teams.deleteTeam({ caller, organizationId, teamId: team(operation.team)! });
          break;
        case "removeMember":
          await harness.identity.members.removeMember({ caller, organizationId, userId: user(operation.user).userId });
          break;
        case "readdMember":
          await createMember(harness, organizationId, { email: user(operation.user).email, role: "read" });
          break;
      }
    } catch (error) {
      // Refused by identity (a deleted team, a user no longer a member): nothing happened, no event.
      if (!(error instanceof AppError) || !["not_found", "invalid_argument"].includes(error.code)) throw error;
    }
  }
}

/** The organization's team events, in stream order, once identity published all of them (its last operation's event is there). */
async function teamEventsOf(organizationId: string, since: Date, sentinelTitle: string): Promise<EventEnvelope[]> {
  return eventually(async () => {
    const events = await readEvents("identity", { organizationId, since });
    expect(events.some((event) => event.type === "team.created" && event.payload.title === sentinelTitle)).toBe(true);
    return events.filter((event) => TEAM_EVENTS.has(event.type));
  });
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

/** Applies events one by one through the consumer's handler, each in a transaction of its own, as the runtime does. */
async function apply(events: readonly EventEnvelope[]): Promise<void> {
  for (const event of events) {
    await harness.content.orm.em.fork().transactional((em) => handler(event, { em, attempt: 1, logger }));
  }
}

/** The copy's members by team ("team/user", sorted), teams named back with `nameOf`. */
async function copyOf(organizationId: string, nameOf: (teamId: string) => string = (id) => id): Promise<string[]> {
  const rows = await harness.content.orm.em
    .fork()
    .execute<{ team_id: string; user_id: string }[]>(`select team_id, user_id from team_memberships where organization_id = ? and present`, [organizationId]);
  return rows.map((row) => `${nameOf(row.team_id)}/${row.user_id}`).sort();
}

async function identityTruth(organizationId: string): Promise<string[]> {
  const snapshot = await harness.identity.teams.listTeamMemberships({ organizationId });
  return snapshot.memberships.map((row) => `${row.teamId}/${row.userId}`).sort();
}

describe("content's copy of team memberships", () => {
  it("ends equal to identity's under any order, duplication and delay of identity's events", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { minLength: 1, maxLength: 10 }),
        fc.array(delivery, { minLength: 2, maxLength: 2 }),
        async (operations, deliveries) => {
          const since = new Date();
          const org = await createOrganization(harness);
          const users = [
            await createMember(harness, org.organizationId),
            await createMember(harness, org.organizationId),
            await createMember(harness, org.organizationId),
          ];
          await runOperations(org, users, [{ op: "createTeam", users: [0, 1] }, ...operations]);
          const sentinel = `sentinel-${randomUUID()}`;
          await harness.identity.teams.createTeam({ caller: org.owner.caller, organizationId: org.organizationId, title: sentinel, memberUserIds: [] });
          const events = await teamEventsOf(org.organizationId, since, sentinel);
          const truth = await identityTruth(org.organizationId);
          // The first team was created with two members: the stream is never empty.
          expect(events.filter((event) => event.type === "team_member.added").length).toBeGreaterThanOrEqual(2);

          const inOrder = readdressed(events);
          await apply(inOrder.events);
          const original = new Map([...inOrder.teamOf].map(([teamId, fresh]) => [fresh, teamId]));
          expect(await copyOf(inOrder.organizationId, (id) => original.get(id)!)).toEqual(truth);

          for (const plan of deliveries) {
            const mixed = readdressed(events);
            await apply(deliverInPlan(mixed.events, plan));
            const back = new Map([...mixed.teamOf].map(([teamId, fresh]) => [fresh, teamId]));
            expect(await copyOf(mixed.organizationId, (id) => back.get(id)!)).toEqual(truth);
          }
          // The running service, through NATS and its durable consumer, reaches the same.
          await eventually(async () => expect(await copyOf(org.organizationId)).toEqual(truth));
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it("ignores a stale team_member.added redelivered after the newer removal (the access hole of issue 23)", async () => {
    const org = await createOrganization(harness);
    const user = await createMember(harness, org.organizationId);
    const since = new Date();
    const { team } = await harness.identity.teams.createTeam({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      title: "Writers",
      memberUserIds: [user.userId],
    });
    await harness.identity.teams.removeTeamMember({ caller: org.owner.caller, organizationId: org.organizationId, teamId: team!.id, userId: user.userId });
    const events = await eventually(async () => {
      const found = (await readEvents("identity", { organizationId: org.organizationId, since })).filter((event) => TEAM_EVENTS.has(event.type));
      expect(found.map((event) => event.type)).toEqual(["team_member.added", "team_member.removed"]);
      return found;
    });
    expect(events.map((event) => event.payload.membershipVersion)).toEqual([1, 2]);
    // The running consumer handled both (an empty copy alone would not say so: it is empty before the first).
    await eventually(async () =>
      expect(
        await harness.content.orm.em.fork().execute(`select version, present from team_memberships where organization_id = ?`, [org.organizationId]),
      ).toEqual([{ version: 2, present: false }]),
    );
    await eventually(async () => expect(await copyOf(org.organizationId)).toEqual([]));
    // The redelivery of the older event, as JetStream does after a crash (a new event id: handled, not deduplicated).
    await apply([{ ...events[0]!, id: randomUUID() }]);
    expect(await copyOf(org.organizationId)).toEqual([]);
  });

  it("keeps applying events recorded before versions existed (no membershipVersion) as before", async () => {
    const organizationId = randomUUID();
    const teamId = randomUUID();
    const userId = randomUUID();
    const legacy = (type: string, payload: Record<string, unknown>): EventEnvelope => ({
      id: randomUUID(),
      type,
      subject: `imprint.identity.v1.${type}`,
      occurredAt: new Date().toISOString(),
      organizationId,
      actor: null,
      payload,
    });
    await apply([legacy("team_member.added", { teamId, userId, role: "member" })]);
    expect(await copyOf(organizationId)).toEqual([`${teamId}/${userId}`]);
    await apply([legacy("team_member.removed", { teamId, userId })]);
    expect(await copyOf(organizationId)).toEqual([]);
    await apply([legacy("team_member.added", { teamId, userId, role: "member" })]);
    expect(await copyOf(organizationId)).toEqual([`${teamId}/${userId}`]);
    // A versioned removal wins over any unversioned event that comes after it.
    await apply([legacy("member.removed", { userId, role: "read", membershipVersion: 3 }), legacy("team_member.added", { teamId, userId, role: "member" })]);
    expect(await copyOf(organizationId)).toEqual([]);
  });
});

describe("invite links' grants (member.added of a join through a link to a space)", () => {
  const LEVELS = ["admin", "create", "review", "edit", "comment", "read"] as const;
  /** A member's history in the organization: joins through links (each with its level) and removals, alternating, versions ascending. */
  const history = fc
    .array(fc.constantFrom(...LEVELS), { minLength: 1, maxLength: 5 })
    .chain((levels) => fc.boolean().map((endsRemoved) => ({ levels, endsRemoved })));

  /** The user's direct grant on the space: its level, or null. */
  async function grantOf(spaceId: string, userId: string): Promise<string | null> {
    const rows = await harness.content.orm.em
      .fork()
      .execute<{ level: string }[]>(`select level from user_grants where target_type = 'space' and target_id = ? and user_id = ?`, [spaceId, userId]);
    return rows[0]?.level ?? null;
  }

  it("end as the member's last join or removal says, under any order, duplication and delay", async () => {
    const org = await createOrganization(harness);
    const space = await createSpace(harness, org);
    const envelope = (type: string, payload: Record<string, unknown>): EventEnvelope => ({
      id: randomUUID(),
      type,
      subject: `imprint.identity.v1.${type}`,
      occurredAt: new Date().toISOString(),
      organizationId: org.organizationId,
      actor: null,
      payload,
    });
    await fc.assert(
      fc.asyncProperty(history, fc.array(deliveryPlans(12), { minLength: 2, maxLength: 2 }), async ({ levels, endsRemoved }, deliveries) => {
        const eventsFor = (userId: string) => {
          let version = 0;
          const events: EventEnvelope[] = [];
          levels.forEach((level, i) => {
            events.push(
              envelope("member.added", {
                userId,
                role: null,
                membershipVersion: ++version,
                inviteSpaceId: space.id,
                inviteCollectionId: "",
                inviteLevel: level,
              }),
            );
            if (i < levels.length - 1 || endsRemoved) events.push(envelope("member.removed", { userId, role: null, membershipVersion: ++version }));
          });
          return events;
        };
        const truth = endsRemoved ? null : levels[levels.length - 1]!;
        const inOrder = randomUUID();
        await apply(eventsFor(inOrder));
        expect(await grantOf(space.id, inOrder)).toBe(truth);
        for (const plan of deliveries) {
          const userId = randomUUID();
          await apply(deliverInPlan(eventsFor(userId), plan, (event) => ({ ...event, id: randomUUID() })));
          expect(await grantOf(space.id, userId)).toBe(truth);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("grant nothing on an item of another organization, and record the grant's event", async () => {
    const org = await createOrganization(harness);
    const other = await createOrganization(harness);
    const space = await createSpace(harness, org);
    const foreign = await createSpace(harness, other);
    const since = new Date();
    const userId = randomUUID();
    const join = (spaceId: string): EventEnvelope => ({
      id: randomUUID(),
      type: "member.added",
      subject: "imprint.identity.v1.member.added",
      occurredAt: new Date().toISOString(),
      organizationId: org.organizationId,
      actor: { userId },
      payload: { userId, role: null, membershipVersion: 1, inviteSpaceId: spaceId, inviteCollectionId: "", inviteLevel: "read" },
    });
    await apply([join(foreign.id), join(space.id)]);
    expect([await grantOf(foreign.id, userId), await grantOf(space.id, userId)]).toEqual([null, "read"]);
    const recorded = await eventually(async () => {
      const events = (await readEvents("content", { organizationId: org.organizationId, since })).filter((event) => event.type === "space.permission_changed");
      expect(events).toHaveLength(1);
      return events[0]!;
    });
    expect(recorded.payload).toMatchObject({ spaceId: space.id, userId, level: "read" });
    expect(recorded.actor).toEqual({ userId });
  });
});

const ADMIN_CLI = fileURLToPath(new URL("../../identity/dist/cli/admin.js", import.meta.url));

/** Runs the compiled admin CLI as an operator does; its one line of JSON. */
const adminCli = (args: string[], env: Record<string, string>) =>
  runNodeScriptJson<{ organizations: number; added: number; removed: number }>(ADMIN_CLI, args, { env, timeoutMs: 60_000 });

describe("reconciliation with identity", () => {
  it("repairs a copy changed by hand, and keeps it repaired against late events", async () => {
    const org = await createOrganization(harness);
    const [ann, bob, cyd] = [
      await createMember(harness, org.organizationId),
      await createMember(harness, org.organizationId),
      await createMember(harness, org.organizationId),
    ];
    const since = new Date();
    const caller = org.owner.caller;
    const organizationId = org.organizationId;
    const { team: editors } = await harness.identity.teams.createTeam({ caller, organizationId, title: "Editors", memberUserIds: [ann.userId, bob.userId] });
    const { team: readers } = await harness.identity.teams.createTeam({ caller, organizationId, title: "Readers", memberUserIds: [cyd.userId] });
    await harness.identity.teams.removeTeamMember({ caller, organizationId, teamId: readers!.id, userId: cyd.userId });
    const truth = await identityTruth(organizationId);
    expect(truth).toEqual([`${editors!.id}/${ann.userId}`, `${editors!.id}/${bob.userId}`].sort());
    await eventually(async () => expect(await copyOf(organizationId)).toEqual(truth));

    // Corrupt the copy: a member lost, one given back, one invented.
    // In one transaction, so the reconciliation job never meets half of it.
    await harness.content.orm.em.fork().transactional(async (em) => {
      await em.execute(`delete from team_memberships where team_id = ? and user_id = ?`, [editors!.id, ann.userId]);
      await em.execute(`update team_memberships set present = true where team_id = ? and user_id = ?`, [readers!.id, cyd.userId]);
      await em.execute(`insert into team_memberships (team_id, user_id, organization_id) values (?, ?, ?)`, [readers!.id, bob.userId, organizationId]);
    });
    expect(await copyOf(organizationId)).not.toEqual(truth);

    // The reconciliation job may run at the same time and repair part or all of it first: the
    // counts are then shared between its run and this call, never more than the three changes.
    const repaired = await permissions.reconcileTeamMemberships({ organizationId });
    expect(repaired.organizations).toBe(1);
    expect([repaired.added, repaired.removed]).toSatisfy(([added, removed]: [number, number]) => added <= 1 && removed <= 2);
    expect(await copyOf(organizationId)).toEqual(truth);
    // Again: nothing left to do.
    expect(await permissions.reconcileTeamMemberships({ organizationId })).toEqual({ organizations: 1, added: 0, removed: 0 });

    // Every event the reconciliation already covers changes nothing when it comes (again) late.
    const events = (await readEvents("identity", { organizationId, since })).filter((event) => TEAM_EVENTS.has(event.type));
    expect(events.length).toBeGreaterThan(0);
    await apply(events.map((event) => ({ ...event, id: randomUUID() })));
    expect(await copyOf(organizationId)).toEqual(truth);

    // Newer changes still apply after it.
    await harness.identity.teams.putTeamMember(PutTeamMemberRequest.fromPartial({ caller, organizationId, teamId: readers!.id, userId: ann.userId }));
    await eventually(async () => expect(await copyOf(organizationId)).toEqual([...truth, `${readers!.id}/${ann.userId}`].sort()));
  });

  it("reconciles every organization content knows when none is named", async () => {
    const org = await createOrganization(harness);
    // Content knows the organization by its space (its rows are all lost below).
    await createSpace(harness, org);
    const user = await createMember(harness, org.organizationId);
    const { team } = await harness.identity.teams.createTeam({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      title: "Everyone",
      memberUserIds: [user.userId],
    });
    await eventually(async () => expect(await copyOf(org.organizationId)).toEqual([`${team!.id}/${user.userId}`]));
    await harness.content.orm.em.fork().execute(`delete from team_memberships where organization_id = ?`, [org.organizationId]);
    // As an operator runs it: `npm run admin -- reconcile team-memberships` (identity's admin CLI, reaching content).
    const result = await adminCli(["reconcile", "team-memberships"], { CONTENT_GRPC_ADDRESS: harness.contentAddress });
    expect(result).toEqual({ organizations: expect.any(Number), added: expect.any(Number), removed: expect.any(Number) });
    expect(result.organizations).toBeGreaterThanOrEqual(1);
    expect(result.added).toBeGreaterThanOrEqual(1);
    expect(await copyOf(org.organizationId)).toEqual([`${team!.id}/${user.userId}`]);
  });
});
