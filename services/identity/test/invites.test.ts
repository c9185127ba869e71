import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { CreateInviteLinkRequest, UpdateInviteLinkRequest } from "@imprint/proto/identity/v1/invites";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
import { createMember, createOrganization, createOutsider, uniqueEmail, waitForEvents } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("invites", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  const createLink = (fields: Partial<CreateInviteLinkRequest> & Pick<CreateInviteLinkRequest, "caller" | "organizationId">) =>
    identity.client.invites.createInviteLink(CreateInviteLinkRequest.fromPartial(fields));
  const updateLink = (fields: Partial<UpdateInviteLinkRequest> & Pick<UpdateInviteLinkRequest, "caller" | "organizationId" | "inviteId" | "updateMask">) =>
    identity.client.invites.updateInviteLink(UpdateInviteLinkRequest.fromPartial(fields));
  const roleOf = async (caller: Caller, organizationId: string, userId: string) =>
    (await identity.client.members.getMember({ caller, organizationId, userId })).member!.role;

  it("adds the addresses as members with their roles at once, creating unknown users; members already there keep their role", async () => {
    const since = new Date(Date.now() - 1_000);
    const { organizationId, owner } = await createOrganization(identity.clients);
    const existing = await createMember(identity.clients, organizationId, { role: "edit" });
    const known = await createOutsider(identity.clients);
    const fresh = uniqueEmail("fresh");
    const guest = uniqueEmail("guest");

    const answer = await identity.client.invites.inviteMembers({
      caller: owner.caller,
      organizationId,
      emails: [
        { email: known.email.toUpperCase(), role: MemberRole.MEMBER_ROLE_UNSPECIFIED },
        { email: fresh, role: MemberRole.MEMBER_ROLE_REVIEW },
        { email: guest, role: MemberRole.MEMBER_ROLE_GUEST },
        { email: existing.email, role: MemberRole.MEMBER_ROLE_ADMIN },
        { email: fresh, role: MemberRole.MEMBER_ROLE_ADMIN },
      ],
      role: MemberRole.MEMBER_ROLE_COMMENT,
      sso: false,
    });
    expect(answer.invited).toBe(3);
    expect(answer.userIds[0]).toBe(known.userId);
    const [, freshId, guestId] = answer.userIds as [string, string, string];
    expect(await roleOf(owner.caller, organizationId, known.userId)).toBe(MemberRole.MEMBER_ROLE_COMMENT);
    expect(await roleOf(owner.caller, organizationId, freshId)).toBe(MemberRole.MEMBER_ROLE_REVIEW);
    expect(await roleOf(owner.caller, organizationId, guestId)).toBe(MemberRole.MEMBER_ROLE_GUEST);
    expect(await roleOf(owner.caller, organizationId, existing.userId)).toBe(MemberRole.MEMBER_ROLE_EDIT);

    const events = await waitForEvents("identity", { since, organizationId }, { types: Array<string>(5).fill("member.added") });
    const added = events.filter((event) => event.type === "member.added" && (event.actor as { userId?: string } | null)?.userId === owner.userId);
    expect(added.map((event) => event.payload)).toEqual([
      { userId: known.userId, role: "comment" },
      { userId: freshId, role: "review" },
      { userId: guestId, role: null },
    ]);
  });

  it("gives the organization's default role when neither the address nor the request names one; sso marks the new members", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: owner.caller, organizationId, updateMask: ["default_role"], defaultRole: MemberRole.MEMBER_ROLE_READ }),
    );
    const { userIds } = await identity.client.invites.inviteMembers({
      caller: owner.caller,
      organizationId,
      emails: [{ email: uniqueEmail("default"), role: MemberRole.MEMBER_ROLE_UNSPECIFIED }],
      role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      sso: true,
    });
    const { member } = await identity.client.members.getMember({ caller: owner.caller, organizationId, userId: userIds[0]! });
    expect([member!.role, member!.sso]).toEqual([MemberRole.MEMBER_ROLE_READ, true]);
  });

  it("refuses invitations from non-admins, of other organizations, and bad addresses naming them", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const editor = await createMember(identity.clients, organizationId, { role: "edit" });
    const other = await createOrganization(identity.clients);
    const one = [{ email: uniqueEmail("x"), role: MemberRole.MEMBER_ROLE_UNSPECIFIED }];
    const invite = (caller: Caller, orgId: string, emails = one) =>
      identity.client.invites.inviteMembers({ caller, organizationId: orgId, emails, role: MemberRole.MEMBER_ROLE_UNSPECIFIED, sso: false });
    await expect(invite(editor.caller, organizationId)).rejects.toMatchObject({ code: "permission_denied" });
    await expect(invite(other.owner.caller, organizationId)).rejects.toMatchObject({ code: "not_found" });
    await expect(invite(owner.caller, organizationId, [])).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^emails: /) });
    await expect(invite(owner.caller, organizationId, [...one, { email: "not-an-address", role: MemberRole.MEMBER_ROLE_UNSPECIFIED }])).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^emails\[1\]: /),
    });
    const tooMany = Array.from({ length: 101 }, () => ({ email: uniqueEmail("many"), role: MemberRole.MEMBER_ROLE_UNSPECIFIED }));
    await expect(invite(owner.caller, organizationId, tooMany)).rejects.toMatchObject({
      code: "invalid_argument",
      message: "emails: at most 100 addresses per call",
    });
  });

  it("creates, lists, reads and updates invite links (admins only); a join takes the link's role and follows as member.added", async () => {
    const since = new Date(Date.now() - 1_000);
    const { organizationId, owner } = await createOrganization(identity.clients);
    const reader = await createMember(identity.clients, organizationId, { role: "read" });
    const { invite } = await createLink({ caller: owner.caller, organizationId, role: MemberRole.MEMBER_ROLE_EDIT });
    expect(invite).toMatchObject({
      organizationId,
      role: MemberRole.MEMBER_ROLE_EDIT,
      level: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      spaceId: "",
      enabled: true,
      redundant: true,
    });
    expect(invite!.expiresAt).toBeUndefined();
    const toSpace = (await createLink({ caller: owner.caller, organizationId, level: MemberRole.MEMBER_ROLE_COMMENT, spaceId: "space-1", disabled: true }))
      .invite!;
    expect(toSpace).toMatchObject({ role: MemberRole.MEMBER_ROLE_GUEST, level: MemberRole.MEMBER_ROLE_COMMENT, spaceId: "space-1", enabled: false });

    const listed = await identity.client.invites.listInviteLinks({ caller: owner.caller, organizationId });
    expect(listed.invites.map((link) => link.id)).toEqual([toSpace.id, invite!.id]);
    expect(listed.page!.totalCount).toBe(2);
    await expect(identity.client.invites.listInviteLinks({ caller: reader.caller, organizationId })).rejects.toMatchObject({ code: "permission_denied" });
    await expect(identity.client.invites.getInviteLink({ caller: reader.caller, organizationId, inviteId: invite!.id })).rejects.toMatchObject({
      code: "permission_denied",
    });

    const expiresAt = new Date(Date.now() + 3_600_000);
    const updated = (
      await updateLink({
        caller: owner.caller,
        organizationId,
        inviteId: invite!.id,
        updateMask: ["role", "expiresAt"],
        role: MemberRole.MEMBER_ROLE_REVIEW,
        expiresAt,
      })
    ).invite!;
    expect([updated.role, updated.expiresAt?.toISOString()]).toEqual([MemberRole.MEMBER_ROLE_REVIEW, expiresAt.toISOString()]);
    expect((await identity.client.invites.getInviteLink({ caller: owner.caller, organizationId, inviteId: invite!.id })).invite).toEqual(updated);

    const joiner = await createOutsider(identity.clients);
    const { member } = await identity.client.invites.joinOrganizationWithInvite({ caller: joiner.caller, organizationId, inviteId: invite!.id });
    expect([member!.user!.id, member!.role]).toEqual([joiner.userId, MemberRole.MEMBER_ROLE_REVIEW]);
    // Reusable: a second person joins through the same link.
    const second = await createOutsider(identity.clients);
    await identity.client.invites.joinOrganizationWithInvite({ caller: second.caller, organizationId, inviteId: invite!.id });

    const events = await waitForEvents(
      "identity",
      { since, organizationId },
      {
        types: ["invite.created", "invite.created", "invite.updated", "member.added", "member.added"],
      },
    );
    expect(events.find((event) => event.type === "invite.updated")).toMatchObject({
      actor: { userId: owner.userId },
      payload: { inviteId: invite!.id, changedFields: ["role", "expiresAt"], changes: { role: { from: "edit", to: "review" } } },
    });
    expect(events.filter((event) => event.type === "invite.created").map((event) => event.payload)).toEqual([
      { inviteId: invite!.id, role: "edit", level: null, spaceId: "", collectionId: "", expiresAt: null, enabled: true },
      { inviteId: toSpace.id, role: null, level: "comment", spaceId: "space-1", collectionId: "", expiresAt: null, enabled: false },
    ]);
    expect(events.filter((event) => event.type === "member.added").map((event) => [event.actor, event.payload])).toContainEqual([
      expect.objectContaining({ userId: joiner.userId }),
      { userId: joiner.userId, role: "review" },
    ]);
  });

  it("refuses a join through a link that is disabled, expired, revoked, of another organization, or turned off, naming why", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const other = await createOrganization(identity.clients);
    const { invite } = await createLink({ caller: owner.caller, organizationId, role: MemberRole.MEMBER_ROLE_READ });
    const inviteId = invite!.id;
    const joiner = await createOutsider(identity.clients);
    const join = (orgId = organizationId) => identity.client.invites.joinOrganizationWithInvite({ caller: joiner.caller, organizationId: orgId, inviteId });

    await updateLink({ caller: owner.caller, organizationId, inviteId, updateMask: ["enabled"], enabled: false });
    await expect(join()).rejects.toMatchObject({ code: "permission_denied", message: expect.stringContaining("disabled") });
    await updateLink({
      caller: owner.caller,
      organizationId,
      inviteId,
      updateMask: ["enabled", "expires_at"],
      enabled: true,
      expiresAt: new Date(Date.now() - 1_000),
    });
    await expect(join()).rejects.toMatchObject({ code: "permission_denied", message: expect.stringContaining("expired") });
    // An expiry cleared: the link admits again, but not while the organization turned links off.
    await updateLink({ caller: owner.caller, organizationId, inviteId, updateMask: ["expires_at"] });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: owner.caller, organizationId, updateMask: ["invite_links"], inviteLinks: false }),
    );
    await expect(join()).rejects.toMatchObject({ code: "permission_denied", message: expect.stringContaining("inviteLinks") });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: owner.caller, organizationId, updateMask: ["invite_links"], inviteLinks: true }),
    );
    await expect(join(other.organizationId)).rejects.toMatchObject({ code: "not_found", message: "Invite not found" });

    expect(await identity.client.organizations.deleteLinkInvite({ caller: owner.caller, organizationId, inviteId })).toEqual({ deleted: true });
    await expect(join()).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("revoked") });
    // A revoked link is gone from the admin's view.
    await expect(identity.client.invites.getInviteLink({ caller: owner.caller, organizationId, inviteId })).rejects.toMatchObject({ code: "not_found" });
    expect((await identity.client.invites.listInviteLinks({ caller: owner.caller, organizationId })).invites).toEqual([]);
    await expect(updateLink({ caller: owner.caller, organizationId, inviteId, updateMask: ["enabled"], enabled: true })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("refuses a member joining again; a link to a space makes a guest", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const member = await createMember(identity.clients, organizationId, { role: "edit" });
    const { invite } = await createLink({ caller: owner.caller, organizationId, level: MemberRole.MEMBER_ROLE_EDIT, collectionId: "collection-1" });
    await expect(identity.client.invites.joinOrganizationWithInvite({ caller: member.caller, organizationId, inviteId: invite!.id })).rejects.toMatchObject({
      code: "already_exists",
      message: "You are already a member of this organization",
    });
    const guest = await createOutsider(identity.clients);
    const joined = await identity.client.invites.joinOrganizationWithInvite({ caller: guest.caller, organizationId, inviteId: invite!.id });
    expect(joined.member!.role).toBe(MemberRole.MEMBER_ROLE_GUEST);
  });

  it("carries a link's grant on the join's member.added (the item, the level, the membership version after the join), ordered after the member's earlier removal", async () => {
    const since = new Date(Date.now() - 1_000);
    const { organizationId, owner } = await createOrganization(identity.clients);
    const { invite } = await createLink({ caller: owner.caller, organizationId, level: MemberRole.MEMBER_ROLE_READ, spaceId: "space-7" });
    const guest = await createOutsider(identity.clients);
    await identity.client.invites.joinOrganizationWithInvite({ caller: guest.caller, organizationId, inviteId: invite!.id });
    await identity.client.members.removeMember({ caller: owner.caller, organizationId, userId: guest.userId });
    await identity.client.invites.joinOrganizationWithInvite({ caller: guest.caller, organizationId, inviteId: invite!.id });
    const events = await waitForEvents("identity", { since, organizationId }, { types: ["member.added", "member.removed", "member.added"] });
    const history = events
      .filter((event) => (event.type === "member.added" || event.type === "member.removed") && event.payload.userId === guest.userId)
      .map((event) => [event.type, event.payload]);
    expect(history).toEqual([
      ["member.added", { userId: guest.userId, role: null, membershipVersion: 1, inviteSpaceId: "space-7", inviteLevel: "read" }],
      ["member.removed", { userId: guest.userId, role: null, membershipVersion: 2 }],
      ["member.added", { userId: guest.userId, role: null, membershipVersion: 3, inviteSpaceId: "space-7", inviteLevel: "read" }],
    ]);
  });

  it("validates links: a role for the organization, a level for one space or collection", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const caller = owner.caller;
    const refused = async (fields: Partial<CreateInviteLinkRequest>, field: string) =>
      expect(createLink({ caller, organizationId, ...fields })).rejects.toMatchObject({
        code: "invalid_argument",
        message: expect.stringMatching(new RegExp(`^${field}: `)),
      });
    await refused({}, "role");
    await refused({ role: MemberRole.MEMBER_ROLE_READ, spaceId: "s1", level: MemberRole.MEMBER_ROLE_READ }, "role");
    await refused({ spaceId: "s1" }, "level");
    await refused({ spaceId: "s1", level: MemberRole.MEMBER_ROLE_GUEST }, "level");
    await refused({ level: MemberRole.MEMBER_ROLE_READ }, "level");
    await refused({ spaceId: "s1", collectionId: "c1", level: MemberRole.MEMBER_ROLE_READ }, "collection_id");
    await refused({ spaceId: "bad id!", level: MemberRole.MEMBER_ROLE_READ }, "space_id");
    const { invite } = await createLink({ caller, organizationId, role: MemberRole.MEMBER_ROLE_READ });
    await expect(updateLink({ caller, organizationId, inviteId: invite!.id, updateMask: ["level"], level: MemberRole.MEMBER_ROLE_READ })).rejects.toMatchObject(
      {
        code: "invalid_argument",
        message: expect.stringMatching(/^level: /),
      },
    );
    await expect(updateLink({ caller, organizationId, inviteId: invite!.id, updateMask: [] })).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("lets a user of one of the organization's e-mail domains join with its default role, and no one else", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({
        caller: owner.caller,
        organizationId,
        updateMask: ["email_domains", "default_role"],
        emailDomains: ["example.com"],
        defaultRole: MemberRole.MEMBER_ROLE_COMMENT,
      }),
    );
    const colleague = await createOutsider(identity.clients);
    const { member } = await identity.client.invites.joinOrganization({ caller: colleague.caller, organizationId });
    expect(member!.role).toBe(MemberRole.MEMBER_ROLE_COMMENT);
    await expect(identity.client.invites.joinOrganization({ caller: colleague.caller, organizationId })).rejects.toMatchObject({ code: "already_exists" });

    const { user } = await identity.client.users.createUser({ email: "stranger@elsewhere.org", displayName: "Stranger" });
    await expect(identity.client.invites.joinOrganization({ caller: { userId: user!.id, tokenId: "" }, organizationId })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("elsewhere.org"),
    });
    await expect(
      identity.client.invites.joinOrganization({ caller: colleague.caller, organizationId: "00000000-0000-4000-8000-000000000000" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("creates an organization whose admin is the caller", async () => {
    const founder = await createOutsider(identity.clients);
    const { organization } = await identity.client.organizations.createOrganizationForCaller({
      caller: founder.caller,
      title: "Founded here",
      emailDomains: ["Example.com", "example.com"],
    });
    expect([organization!.title, organization!.emailDomains, organization!.permissions!.admin]).toEqual(["Founded here", ["example.com"], true]);
    expect(await roleOf(founder.caller, organization!.id, founder.userId)).toBe(MemberRole.MEMBER_ROLE_ADMIN);
    await expect(identity.client.organizations.createOrganizationForCaller({ caller: founder.caller, title: "x", emailDomains: [] })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^title: /),
    });
  });
});
