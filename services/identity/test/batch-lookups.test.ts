import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { createMember, createOrganization, createOutsider } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("batch lookups for other services", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  it("BatchGetUsers answers known users in request order, once each, leaving out unknown and malformed ids", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients, { ownerDisplayName: "Olivia Owner" });
    const bob = await createMember(identity.clients, organizationId, { displayName: "Bob Builder" });
    const outsider = await createOutsider(identity.clients);
    const { users } = await identity.client.batchGetUsers({
      userIds: [outsider.userId, randomUUID(), bob.userId, "not-an-id", owner.userId, bob.userId],
    });
    expect(users.map((user) => user.displayName)).toEqual(["Oscar Outsider", "Bob Builder", "Olivia Owner"]);
    expect(users[1]).toEqual({ id: bob.userId, displayName: "Bob Builder", email: bob.email, photoUrl: "" });
    expect((await identity.client.batchGetUsers({ userIds: [] })).users).toEqual([]);
  });

  it("BatchGetMembers answers memberships of the organization only, in request order", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const commenter = await createMember(identity.clients, organizationId, { displayName: "Cora Commenter", role: MemberRole.MEMBER_ROLE_COMMENT });
    const outsider = await createOutsider(identity.clients);
    const elsewhere = await createOrganization(identity.clients);
    const { members } = await identity.client.batchGetMembers({
      organizationId,
      userIds: [commenter.userId, outsider.userId, elsewhere.owner.userId, owner.userId],
    });
    expect(members.map((member) => [member.user!.id, member.role])).toEqual([
      [commenter.userId, MemberRole.MEMBER_ROLE_COMMENT],
      [owner.userId, MemberRole.MEMBER_ROLE_ADMIN],
    ]);
    expect(members[0]).toMatchObject({ disabled: false, user: { displayName: "Cora Commenter", email: commenter.email } });
    expect(members[0]!.joinedAt).toBeInstanceOf(Date);
    expect((await identity.client.batchGetMembers({ organizationId: "nope", userIds: [owner.userId] })).members).toEqual([]);
  });

  it("refuses more than 1000 ids", async () => {
    const userIds = Array.from({ length: 1001 }, () => randomUUID());
    await expect(identity.client.batchGetUsers({ userIds })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "user_ids: must hold at most 1000 ids",
    });
    const { organizationId } = await createOrganization(identity.clients);
    await expect(identity.client.batchGetMembers({ organizationId, userIds })).rejects.toMatchObject({ code: "invalid_argument" });
    expect((await identity.client.batchGetUsers({ userIds: userIds.slice(0, 1000) })).users).toEqual([]);
  });
});
