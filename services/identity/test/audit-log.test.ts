import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { AuditEvent } from "@imprint/proto/identity/v1/audit";
import { spaceCreated, spaceDeleted, spaceTransferred, spaceUpdated, revisionCreated } from "@imprint/proto/content/v1/event-contracts";
import { sitePublished } from "@imprint/proto/publishing/v1/event-contracts";
import { commentCreated } from "@imprint/proto/collaboration/v1/event-contracts";
import type { EventDefinition, EventEnvelope } from "@imprint/runtime";
import {
  createMember,
  createOrganization,
  deliverInPlan,
  deliveryPlans,
  errorCode,
  eventually,
  testLogger,
  testNats,
  type TestOrganization,
} from "@imprint/runtime/testing";
import { auditEventConsumers } from "../src/consumers/audit-events.js";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/**
 * The audit log: identity's own events and other contexts' (published on NATS as their producers
 * do) become entries through the running consumers; reads are the admins' alone.
 */
let identity: TestIdentity;
let org: TestOrganization;
const RETENTION_DAYS = 30;
const logger = testLogger("identity-audit-log");

beforeAll(async () => {
  identity = await startTestIdentity({ extraEnv: { AUDIT_RETENTION_DAYS: String(RETENTION_DAYS), AUDIT_PRUNE_INTERVAL_MS: "200" } });
  org = await createOrganization(identity.clients, { ownerDisplayName: "Olivia Owner" });
});
afterAll(() => identity?.stop());

/** An event of another context, as its producer's outbox relay publishes it. */
async function publish<T>(
  contract: EventDefinition<T>,
  payload: Partial<T>,
  options: { organizationId?: string; userId?: string | null; occurredAt?: Date; id?: string } = {},
): Promise<EventEnvelope> {
  const envelope: EventEnvelope = {
    id: options.id ?? randomUUID(),
    type: contract.type,
    subject: contract.subject,
    occurredAt: (options.occurredAt ?? identity.clock.now()).toISOString(),
    organizationId: options.organizationId ?? org.organizationId,
    actor: options.userId === null ? null : { userId: options.userId ?? org.owner.userId },
    payload: payload,
  };
  await jetstream(await testNats()).publish(envelope.subject, JSON.stringify(envelope), { msgID: envelope.id });
  return envelope;
}

async function list(query: Partial<Parameters<TestIdentity["client"]["audit"]["listAuditEvents"]>[0]> = {}, organization = org) {
  return identity.client.audit.listAuditEvents({
    caller: organization.owner.caller,
    organizationId: organization.organizationId,
    action: "",
    actor: "",
    target: "",
    ...query,
  });
}

/** Waits until the log holds an entry of `action` on `target`, and answers it. */
function entryOf(action: string, target: string, organization = org): Promise<AuditEvent> {
  return eventually(async () => (await list({ action, target }, organization)).events[0], 10_000);
}

describe("identity's own events", () => {
  it("record who changed a member's role, with labels captured when recorded", async () => {
    const member = await createMember(identity.clients, org.organizationId, { role: "read", displayName: "Max Member" });
    await identity.client.members.updateMember({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      userId: member.userId,
      role: MemberRole.MEMBER_ROLE_EDIT,
      updateMask: ["role"],
    });
    const entry = await entryOf("organization.member.role-updated", member.userId);
    expect(entry).toMatchObject({
      organizationId: org.organizationId,
      action: "organization.member.role-updated",
      actor: { type: "user", id: org.owner.userId, label: "Olivia Owner" },
      source: "api",
      target: { type: "user", id: member.userId, label: "Max Member" },
      eventType: "member.role_changed",
      payload: { userId: member.userId, from: "read", to: "edit" },
    });
    // The operator's AddMember had no caller: the system made it.
    const added = await entryOf("organization.member.added", member.userId);
    expect([added.actor, added.source]).toEqual([{ type: "system", id: "imprint", label: "Imprint" }, "workflow"]);
    expect(await identity.client.audit.getAuditEvent({ caller: org.owner.caller, organizationId: org.organizationId, auditEventId: entry.id })).toEqual({
      event: entry,
    });
  });
});

describe("other contexts' events", () => {
  it("become entries once, whatever the duplicates and replays, newest first by when they occurred", async () => {
    const spaceId = randomUUID();
    const base = identity.clock.now().getTime();
    const created = await publish(spaceCreated, { spaceId, title: "Handbook", revisionId: randomUUID() }, { occurredAt: new Date(base - 60_000) });
    // Arrives first although it occurred last; and a rename carries the new title.
    await publish(spaceUpdated, { spaceId, changedFields: ["title"], changes: { title: { from: "Handbook", to: "Guide" } } }, { occurredAt: new Date(base) });
    await publish(revisionCreated, { spaceId, revisionId: randomUUID(), parents: [randomUUID()], movedHead: true }, { occurredAt: new Date(base - 30_000) });
    // Not audited: a draft's revision on a change request, a comment.
    await publish(revisionCreated, { spaceId, revisionId: randomUUID(), parents: [randomUUID()], movedHead: true, changeRequestId: randomUUID() });
    await publish(commentCreated, { spaceId, commentId: randomUUID() });
    // The same event again under another message id (a producer that republished it).
    await jetstream(await testNats()).publish(created.subject, JSON.stringify(created), { msgID: randomUUID() });

    const entries = await eventually(async () => {
      const { events } = await list({ target: spaceId });
      return events.length === 3 ? events : undefined;
    }, 10_000);
    expect(entries.map((entry) => [entry.action, entry.target?.label])).toEqual([
      ["space.updated", "Guide"],
      ["space.content.updated", "Guide"],
      ["space.created", "Handbook"],
    ]);
    expect(entries[2]!.id).toBe(created.id);

    // A replay straight through the consumer's handler (past the runtime's record of processed events) adds nothing.
    const handler = auditEventConsumers({ clock: identity.clock.now, auditRetentionDays: RETENTION_DAYS }).find((spec) => spec.context === "content")!.handler;
    await identity.running.orm.em.fork().transactional((em) => handler(created, { em, attempt: 1, logger }));
    expect((await list({ target: spaceId })).events).toHaveLength(3);
    expect((await list({ action: "comment.created" })).events).toEqual([]);
  });

  it("records a transfer in both organizations, and a publication", async () => {
    const away = await createOrganization(identity.clients);
    const spaceId = randomUUID();
    const moved = await publish(
      spaceTransferred,
      { spaceId, fromOrganizationId: org.organizationId, toOrganizationId: away.organizationId, lifecycleVersion: 1 },
      { organizationId: away.organizationId },
    );
    const there = await entryOf("space.transferred", spaceId, away);
    const here = await entryOf("space.transferred", spaceId, org);
    expect(there.id).toBe(moved.id);
    expect(here.id).not.toBe(moved.id);
    expect([here.actor?.id, there.actor?.id]).toEqual([org.owner.userId, org.owner.userId]);
    // Neither organization reads the other's entry.
    expect(await errorCode(identity.client.audit.getAuditEvent({ caller: org.owner.caller, organizationId: org.organizationId, auditEventId: there.id }))).toBe(
      "not_found",
    );

    const siteId = randomUUID();
    await publish(sitePublished, { siteId, visibility: "public" });
    expect((await entryOf("site.published", siteId)).target).toEqual({ type: "site", id: siteId, label: "" });
  });
});

describe("filters and pages", () => {
  it("narrows by time, action, actor and target, and pages newest first", async () => {
    const spaceId = randomUUID();
    const base = identity.clock.now().getTime() - 10 * 60_000;
    const other = await createMember(identity.clients, org.organizationId, { role: "edit" });
    for (let minute = 0; minute < 5; minute += 1) {
      await publish(
        spaceUpdated,
        { spaceId, changedFields: ["emoji"], changes: {} },
        { occurredAt: new Date(base + minute * 60_000), userId: minute % 2 === 0 ? org.owner.userId : other.userId },
      );
    }
    await eventually(async () => (await list({ target: spaceId })).events.length === 5 || undefined, 10_000);

    const window = await list({ target: spaceId, from: new Date(base + 60_000), to: new Date(base + 3 * 60_000) });
    expect(window.events.map((event) => event.occurredAt?.getTime())).toEqual([base + 3 * 60_000, base + 2 * 60_000, base + 60_000]);
    expect((await list({ target: spaceId, actor: other.userId })).events).toHaveLength(2);
    expect((await list({ target: spaceId, action: "space.created" })).events).toHaveLength(0);

    const seen: number[] = [];
    let pageToken = "";
    do {
      const page = await list({ target: spaceId, page: { pageSize: 2, pageToken } });
      expect(page.page?.totalCount).toBe(5);
      seen.push(...page.events.map((event) => event.occurredAt!.getTime()));
      pageToken = page.page?.nextPageToken ?? "";
    } while (pageToken);
    expect(seen).toEqual([4, 3, 2, 1, 0].map((minute) => base + minute * 60_000));

    expect(await errorCode(list({ from: new Date(base + 60_000), to: new Date(base) }))).toBe("invalid_argument");
  });

  it("lists every action with its label", async () => {
    const { actions } = await identity.client.audit.listAuditEventActions({ caller: org.owner.caller, organizationId: org.organizationId });
    expect(actions).toContainEqual({ id: "site.published", label: "Published site" });
    expect(actions).toContainEqual({ id: "organization.team.member-added", label: "Added organization team member" });
    expect(actions.map((action) => action.id)).toEqual([...actions.map((action) => action.id)].sort());
  });
});

describe("who may read it", () => {
  it("is refused to members who are not admins, and another organization is not found", async () => {
    const editor = await createMember(identity.clients, org.organizationId, { role: "edit" });
    const stranger = await createOrganization(identity.clients);
    const auditEventId = (await list()).events[0]!.id;
    const calls = (caller: { userId: string; tokenId: string }) => [
      () => identity.client.audit.listAuditEvents({ caller, organizationId: org.organizationId, action: "", actor: "", target: "" }),
      () => identity.client.audit.getAuditEvent({ caller, organizationId: org.organizationId, auditEventId }),
      () => identity.client.audit.listAuditEventActions({ caller, organizationId: org.organizationId }),
    ];
    for (const call of calls(editor.caller)) expect(await errorCode(call())).toBe("permission_denied");
    for (const call of calls(stranger.owner.caller)) expect(await errorCode(call())).toBe("not_found");
    expect(
      await errorCode(identity.client.audit.getAuditEvent({ caller: org.owner.caller, organizationId: org.organizationId, auditEventId: randomUUID() })),
    ).toBe("not_found");
  });
});

describe("any delivery order", () => {
  // Labels are as known when an entry is recorded (GitBook's "captured when recorded"), so they
  // alone may differ with the arrival order; every other column converges.
  it("ends with the same log as in-order delivery, under shuffles, duplicates and held-back events", async () => {
    const handler = auditEventConsumers({ clock: identity.clock.now, auditRetentionDays: RETENTION_DAYS }).find((spec) => spec.context === "content")!.handler;
    const rows = async (organizationId: string) =>
      identity.running.orm.em
        .fork()
        .execute(
          `select id, action, actor_id, target_id, occurred_at, payload from audit_events where organization_id = ? order by occurred_at desc, id desc`,
          [organizationId],
        );
    const deliver = async (events: EventEnvelope[]) => {
      for (const event of events) await identity.running.orm.em.fork().transactional((em) => handler(event, { em, attempt: 1, logger }));
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10 }), deliveryPlans(10), async (count, plan) => {
        const organizationId = randomUUID();
        const spaceId = randomUUID();
        const base = identity.clock.now().getTime() - 60_000;
        const contractOf = (index: number) => (index === 0 ? spaceCreated : index % 3 === 0 ? spaceDeleted : spaceUpdated);
        const events: EventEnvelope[] = Array.from({ length: count }, (_, index) => ({
          id: randomUUID(),
          type: contractOf(index).type,
          subject: contractOf(index).subject,
          occurredAt: new Date(base + index * 1000).toISOString(),
          organizationId,
          actor: { userId: org.owner.userId },
          payload:
            index === 0
              ? { spaceId, title: "Title 0", revisionId: randomUUID() }
              : index % 3 === 0
                ? { spaceId, deletedAt: new Date(base).toISOString(), lifecycleVersion: index }
                : { spaceId, changedFields: ["title"], changes: { title: { from: `Title ${index - 1}`, to: `Title ${index}` } } },
        }));
        await deliver(events);
        const inOrder = await rows(organizationId);
        await identity.running.orm.em.fork().execute(`delete from audit_events where organization_id = ?`, [organizationId]);
        await deliver(deliverInPlan(events, plan));
        expect(await rows(organizationId)).toEqual(inOrder);
        expect(inOrder).toHaveLength(count);
      }),
      { numRuns: 15, endOnFailure: true },
    );
  });
});

describe("retention", () => {
  it("deletes entries older than AUDIT_RETENTION_DAYS, and does not record events already past it", async () => {
    const spaceId = randomUUID();
    await publish(spaceCreated, { spaceId, title: "Old news", revisionId: randomUUID() });
    await entryOf("space.created", spaceId);
    // Of one space, so handled in order: the stale one first, then the fresh one.
    const later = randomUUID();
    const tooOld = new Date(identity.clock.now().getTime() - (RETENTION_DAYS + 1) * 86_400_000);
    await publish(spaceCreated, { spaceId: later, title: "Too old", revisionId: randomUUID() }, { occurredAt: tooOld });
    await publish(spaceUpdated, { spaceId: later, changedFields: ["title"], changes: { title: { from: "Too old", to: "Fresh" } } });
    await entryOf("space.updated", later);
    expect((await list({ target: later })).events.map((event) => event.action)).toEqual(["space.updated"]);

    identity.clock.advanceDays(RETENTION_DAYS + 1);
    await eventually(async () => (await list({ target: spaceId })).events.length === 0 || undefined, 10_000);
    expect((await list()).events).toEqual([]);
  });
});
