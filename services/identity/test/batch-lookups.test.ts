import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
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
    const { users } = await identity.client.users.batchGetUsers({
      userIds: [outsider.userId, randomUUID(), bob.userId, "not-an-id", owner.userId, bob.userId],
    });
    expect(users.map((user) => user.displayName)).toEqual(["Oscar Outsider", "Bob Builder", "Olivia Owner"]);
    expect(users[1]).toEqual({ id: bob.userId, displayName: "Bob Builder", email: bob.email, photoUrl: "" });
    expect((await identity.client.users.batchGetUsers({ userIds: [] })).users).toEqual([]);
  });

  it("BatchGetMembers answers memberships of the organization only, in request order", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const commenter = await createMember(identity.clients, organizationId, { displayName: "Cora Commenter", role: MemberRole.MEMBER_ROLE_COMMENT });
    const outsider = await createOutsider(identity.clients);
    const elsewhere = await createOrganization(identity.clients);
    const { members } = await identity.client.members.batchGetMembers({
      organizationId,
      userIds: [commenter.userId, outsider.userId, elsewhere.owner.userId, owner.userId],
    });
    expect(members.map((member) => [member.user!.id, member.role])).toEqual([
      [commenter.userId, MemberRole.MEMBER_ROLE_COMMENT],
      [owner.userId, MemberRole.MEMBER_ROLE_ADMIN],
    ]);
    expect(members[0]).toMatchObject({ disabled: false, user: { displayName: "Cora Commenter", email: commenter.email } });
    expect(members[0]!.joinedAt).toBeInstanceOf(Date);
    expect((await identity.client.members.batchGetMembers({ organizationId: "nope", userIds: [owner.userId] })).members).toEqual([]);
  });

  it("BatchGetOrganizations answers public fields only, to no caller, in request order, leaving out unknown and malformed ids", async () => {
    const first = await createOrganization(identity.clients, { title: "Public Org One" });
    const second = await createOrganization(identity.clients, { title: "Public Org Two" });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({
        caller: first.owner.caller,
        organizationId: first.organizationId,
        updateMask: ["email_domains", "logo_url", "ai"],
        emailDomains: ["one.example"],
        logoUrl: "https://one.example/logo.png",
        ai: true,
      }),
    );
    const { organizations } = await identity.client.organizations.batchGetOrganizations({
      organizationIds: [second.organizationId, randomUUID(), "not-an-id", first.organizationId, second.organizationId],
    });
    expect(organizations.map((organization) => organization.title)).toEqual(["Public Org Two", "Public Org One"]);
    const [, one] = organizations;
    expect(one).toMatchObject({
      id: first.organizationId,
      type: "business",
      plan: "free",
      trialStatus: "notapplicable",
      logoUrl: "https://one.example/logo.png",
    });
    expect(one!.createdAt).toBeInstanceOf(Date);
    // What only members see stays empty, and the caller (there is none) may do nothing.
    expect(one).toMatchObject({
      emailDomains: [],
      defaultRole: MemberRole.MEMBER_ROLE_GUEST,
      defaultContentSiteId: "",
      sso: false,
      ai: false,
      inviteLinks: false,
      mergeRulesType: "",
    });
    expect(Object.values(one!.permissions!).every((allowed) => allowed === false)).toBe(true);
    expect((await identity.client.organizations.batchGetOrganizations({ organizationIds: [] })).organizations).toEqual([]);
    await expect(
      identity.client.organizations.batchGetOrganizations({ organizationIds: Array.from({ length: 1001 }, () => randomUUID()) }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      message: "organization_ids: must hold at most 1000 ids",
    });
  });

  it("refuses more than 1000 ids", async () => {
    const userIds = Array.from({ length: 1001 }, () => randomUUID());
    await expect(identity.client.users.batchGetUsers({ userIds })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "user_ids: must hold at most 1000 ids",
    });
    const { organizationId } = await createOrganization(identity.clients);
    await expect(identity.client.members.batchGetMembers({ organizationId, userIds })).rejects.toMatchObject({ code: "invalid_argument" });
    expect((await identity.client.users.batchGetUsers({ userIds: userIds.slice(0, 1000) })).users).toEqual([]);
  });
});
