import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember, createOrganization, waitForEvents } from "@imprint/runtime/testing";
import { MemberRole } from "@imprint/proto/identity/v1";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("identity events", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  it("publishes membership and organization changes on JetStream with full envelopes", async () => {
    const since = new Date(Date.now() - 1_000);
    const { organizationId, owner } = await createOrganization(identity.clients);
    const member = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_READ });
    await identity.client.members.updateMember({
      updateMask: ["role"],
      caller: owner.caller,
      organizationId,
      userId: member.userId,
      role: MemberRole.MEMBER_ROLE_EDIT,
    });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({
        caller: { userId: owner.userId, tokenId: "" },
        organizationId,
        updateMask: ["title", "ai"],
        title: "Renamed org",
        ai: true,
      }),
    );
    await identity.client.members.setMemberSso({ caller: owner.caller, organizationId, userId: member.userId });
    await identity.client.members.removeMember({ caller: owner.caller, organizationId, userId: member.userId });

    const expected = [
      "organization.created",
      "member.added",
      "member.added",
      "member.role_changed",
      "organization.updated",
      "member.sso_enabled",
      "member.removed",
    ];
    // The changes this test made, in commit order (other events of the organization may come between).
    const events = await waitForEvents("identity", { since, organizationId }, { types: expected });
    expect(events.filter((event) => expected.includes(event.type)).map((event) => event.type)).toEqual(expected);

    for (const event of events) {
      expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(event.subject).toBe(`imprint.identity.v1.${event.type}`);
      expect(Date.parse(event.occurredAt)).not.toBeNaN();
      expect(event.organizationId).toBe(organizationId);
    }
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType("member.added")[1]).toMatchObject({ actor: null, payload: { userId: member.userId, role: "read" } });
    expect(byType("member.role_changed")[0]).toMatchObject({
      actor: { userId: owner.userId },
      payload: { userId: member.userId, from: "read", to: "edit" },
    });
    expect(byType("organization.updated")[0]).toMatchObject({
      actor: { userId: owner.userId },
      payload: { changedFields: ["title", "ai"], changes: { title: { to: "Renamed org" }, ai: { from: false, to: true } } },
    });
    expect(byType("member.removed")[0]).toMatchObject({ actor: { userId: owner.userId }, payload: { userId: member.userId, role: "edit" } });
  });

  it("records no event when nothing changed", async () => {
    const since = new Date(Date.now() - 1_000);
    const { organizationId, owner } = await createOrganization(identity.clients, { title: "Same title" });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: owner.caller, organizationId, updateMask: ["title"], title: "Same title" }),
    );
    // A later, real change proves the relay caught up past the no-op.
    await identity.client.organizations.createLinkInvite({ organizationId, role: MemberRole.MEMBER_ROLE_READ });
    const events = await waitForEvents("identity", { since, organizationId }, { types: ["organization.created", "member.added", "invite.created"] });
    // Published in commit order: had the no-op recorded an event, it would be out before invite.created.
    expect(events.filter((event) => event.type === "organization.updated")).toEqual([]);
  });
});
