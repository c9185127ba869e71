import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forkEm } from "@imprint/runtime";
import type { Caller } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
import { LinkInvite } from "../src/domain/link-invite.js";
import { createMember, createOrganization, createOutsider } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("organizations", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  const update = (fields: Partial<UpdateOrganizationRequest> & Pick<UpdateOrganizationRequest, "caller" | "organizationId" | "updateMask">) =>
    identity.client.organizations.updateOrganization(UpdateOrganizationRequest.fromPartial(fields));

  it("returns an organization with its defaults and the admin's permissions", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients, { title: "Acme Docs" });
    const { organization } = await identity.client.organizations.getOrganization({ caller: owner.caller, organizationId });
    expect(organization).toMatchObject({
      id: organizationId,
      title: "Acme Docs",
      emailDomains: [],
      hostname: "",
      type: "business",
      defaultRole: MemberRole.MEMBER_ROLE_GUEST,
      inviteLinks: true,
      sso: false,
      ai: false,
      plan: "free",
      trialStatus: "notapplicable",
      mergeRulesType: "none",
    });
    expect(organization!.createdAt).toBeInstanceOf(Date);
    expect(Object.values(organization!.permissions!).every(Boolean)).toBe(true);
  });

  it("reports each role's permissions", async () => {
    const { organizationId } = await createOrganization(identity.clients);
    const reader = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_READ });
    const creator = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_CREATE });
    const guest = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_GUEST });
    const permissionsOf = async (caller: Caller) =>
      (await identity.client.organizations.getOrganization({ caller, organizationId })).organization!.permissions!;

    expect(await permissionsOf(creator.caller)).toMatchObject({
      view: true,
      admin: false,
      createContent: true,
      createOpenapiSpec: true,
      listMembers: true,
      viewBilling: false,
    });
    expect(await permissionsOf(reader.caller)).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true, listIntegrations: false });
    const guestPermissions = await permissionsOf(guest.caller);
    expect(
      Object.entries(guestPermissions)
        .filter(([, allowed]) => allowed)
        .map(([name]) => name),
    ).toEqual(["view"]);
  });

  it("answers not_found to non-members, for unknown and malformed ids alike", async () => {
    const { organizationId } = await createOrganization(identity.clients);
    const outsider = await createOutsider(identity.clients);
    for (const id of [organizationId, "3b241101-e2bb-4255-8caf-4136c566a962", "not-an-id"]) {
      await expect(identity.client.organizations.getOrganization({ caller: outsider.caller, organizationId: id })).rejects.toMatchObject({
        code: "not_found",
        message: "Organization not found",
      });
    }
  });

  it("lists the caller's organizations page by page", async () => {
    const first = await createOrganization(identity.clients, { title: "First org" });
    const second = await createOrganization(identity.clients, { title: "Second org" });
    const third = await createOrganization(identity.clients, { title: "Third org" });
    const member = await createMember(identity.clients, first.organizationId);
    identity.clock.advance(1_000);
    await identity.client.members.addMember({ organizationId: second.organizationId, email: member.email, role: MemberRole.MEMBER_ROLE_READ });
    identity.clock.advance(1_000);
    await identity.client.members.addMember({ organizationId: third.organizationId, email: member.email, role: MemberRole.MEMBER_ROLE_ADMIN });

    const page1 = await identity.client.organizations.listOrganizations({ caller: member.caller, page: { pageToken: "", pageSize: 2 } });
    expect(page1.organizations.map((o) => o.title)).toEqual(["First org", "Second org"]);
    expect(page1.page).toMatchObject({ totalCount: 3 });
    expect(page1.page!.nextPageToken).not.toBe("");
    const page2 = await identity.client.organizations.listOrganizations({ caller: member.caller, page: { pageToken: page1.page!.nextPageToken, pageSize: 2 } });
    expect(page2.organizations.map((o) => o.title)).toEqual(["Third org"]);
    expect(page2.organizations[0]!.permissions!.admin).toBe(true);
    expect(page2.page!.nextPageToken).toBe("");

    await expect(identity.client.organizations.listOrganizations({ caller: member.caller, page: { pageToken: "", pageSize: 5000 } })).rejects.toMatchObject({
      code: "invalid_argument",
    });
  });

  it("updates only the fields named in the mask (snake_case or camelCase)", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients, { title: "Before" });
    const { organization } = await update({
      caller: owner.caller,
      organizationId,
      updateMask: ["title", "email_domains", "hostname", "defaultRole", "logo_url", "ai", "invite_links"],
      title: "  After  ",
      emailDomains: ["Example.COM", "example.com", "docs.example.org"],
      hostname: "acme-docs",
      defaultRole: MemberRole.MEMBER_ROLE_EDIT,
      logoUrl: "https://cdn.example.com/logo.png",
      ai: true,
      inviteLinks: false,
      sso: true, // not in the mask: ignored
    });
    expect(organization).toMatchObject({
      title: "After",
      emailDomains: ["example.com", "docs.example.org"],
      hostname: "acme-docs",
      defaultRole: MemberRole.MEMBER_ROLE_EDIT,
      logoUrl: "https://cdn.example.com/logo.png",
      ai: true,
      inviteLinks: false,
      sso: false,
    });

    const cleared = await update({
      caller: owner.caller,
      organizationId,
      updateMask: ["hostname", "logo_url", "default_role"],
      defaultRole: MemberRole.MEMBER_ROLE_GUEST,
    });
    expect(cleared.organization).toMatchObject({ hostname: "", logoUrl: "", defaultRole: MemberRole.MEMBER_ROLE_GUEST, title: "After" });
  });

  it("names the field and the rule in validation errors", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const cases: [Partial<UpdateOrganizationRequest> & { updateMask: string[] }, string][] = [
      [{ updateMask: ["title"], title: "x" }, "title: must be at least 2 characters"],
      [{ updateMask: ["title"], title: "y".repeat(256) }, "title: must be at most 255 characters"],
      [{ updateMask: ["title"], title: "a      " }, "title: must contain at least two non-whitespace characters"],
      [
        { updateMask: ["email_domains"], emailDomains: ["ok.com", "not a domain"] },
        'email_domains[1]: must be a domain name such as example.com (got "not a domain")',
      ],
      [{ updateMask: ["hostname"], hostname: "ab" }, "hostname: must be at least 3 characters"],
      [{ updateMask: ["hostname"], hostname: "h".repeat(33) }, "hostname: must be at most 32 characters"],
      [{ updateMask: ["hostname"], hostname: "-acme" }, "hostname: must be lowercase letters, digits and hyphens"],
      [{ updateMask: ["logo_url"], logoUrl: "ftp://x" }, "logo_url: must be an http(s) URL"],
      [{ updateMask: ["default_role"] }, "default_role: must be a role"],
      [{ updateMask: ["plan"] }, 'update_mask: unknown field "plan"'],
      [{ updateMask: [] }, "update_mask: must name at least one field"],
    ];
    for (const [fields, message] of cases) {
      const error = await update({ caller: owner.caller, organizationId, ...fields }).catch((e: unknown) => e);
      expect(error, message).toMatchObject({ code: "invalid_argument", message: expect.stringContaining(message) });
    }
  });

  it("keeps merge rules: the type and each rule with its users, checked, read back by members", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const reader = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_READ });
    const mergeRules = {
      type: "rules",
      rules: [
        { rule: "require_at_least_one_approved_review", userIds: [] },
        { rule: "allow_bypass", userIds: [owner.userId, owner.userId] },
      ],
    };
    const { organization } = await update({ caller: owner.caller, organizationId, updateMask: ["mergeRules"], mergeRules });
    const expected = {
      type: "rules",
      rules: [
        { rule: "require_at_least_one_approved_review", userIds: [] },
        { rule: "allow_bypass", userIds: [owner.userId] },
      ],
    };
    expect(organization).toMatchObject({ mergeRulesType: "rules", mergeRules: expected });
    const read = await identity.client.organizations.getOrganization({ caller: reader.caller, organizationId });
    expect(read.organization).toMatchObject({ mergeRulesType: "rules", mergeRules: expected });

    const cases: [UpdateOrganizationRequest["mergeRules"], string][] = [
      [{ type: "some", rules: [] }, 'mergeRules.type: must be "none" or "rules"'],
      [{ type: "none", rules: [{ rule: "require_author_to_merge", userIds: [] }] }, "mergeRules.rules: must be empty"],
      [{ type: "rules", rules: [{ rule: "custom", userIds: [] }] }, 'mergeRules.rules[0].rule: "custom" is not supported'],
      [{ type: "rules", rules: [{ rule: "require_agent_review", userIds: [] }] }, 'mergeRules.rules[0].rule: "require_agent_review" is not supported'],
      [{ type: "rules", rules: [{ rule: "require_specific_reviewers", userIds: [] }] }, "mergeRules.rules[0].users: must name 1 to 50 users"],
      [{ type: "rules", rules: [{ rule: "allow_bypass", userIds: ["nobody"] }] }, 'mergeRules.rules[0].users: "nobody" is not a user id'],
      [{ type: "rules", rules: [{ rule: "whatever", userIds: [] }] }, "mergeRules.rules[0].rule: must be one of"],
    ];
    for (const [rules, message] of cases) {
      const error = await update({ caller: owner.caller, organizationId, updateMask: ["merge_rules"], mergeRules: rules }).catch((e: unknown) => e);
      expect(error, message).toMatchObject({ code: "invalid_argument", message: expect.stringContaining(message) });
    }
    const none = await update({ caller: owner.caller, organizationId, updateMask: ["merge_rules"], mergeRules: { type: "none", rules: [] } });
    expect(none.organization).toMatchObject({ mergeRulesType: "none", mergeRules: { type: "none", rules: [] } });
  });

  it("lets only admins update, and hides the organization from non-members", async () => {
    const { organizationId } = await createOrganization(identity.clients);
    const editor = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_EDIT });
    const outsider = await createOutsider(identity.clients);
    await expect(update({ caller: editor.caller, organizationId, updateMask: ["title"], title: "Hijack" })).rejects.toMatchObject({
      code: "permission_denied",
    });
    await expect(update({ caller: outsider.caller, organizationId, updateMask: ["title"], title: "Hijack" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("refuses a hostname another organization uses", async () => {
    const first = await createOrganization(identity.clients);
    const second = await createOrganization(identity.clients);
    const hostname = `host-${first.organizationId.slice(0, 8)}`;
    await update({ caller: first.owner.caller, organizationId: first.organizationId, updateMask: ["hostname"], hostname });
    await expect(update({ caller: second.owner.caller, organizationId: second.organizationId, updateMask: ["hostname"], hostname })).rejects.toMatchObject({
      code: "already_exists",
      message: "hostname: is already used by another organization",
    });
  });

  it("finds organizations by e-mail domain only among the caller's own", async () => {
    const mine = await createOrganization(identity.clients, { title: "Mine" });
    const theirs = await createOrganization(identity.clients, { title: "Theirs" });
    const domain = `d${mine.organizationId.slice(0, 8)}.example.com`;
    await update({ caller: mine.owner.caller, organizationId: mine.organizationId, updateMask: ["email_domains"], emailDomains: [domain] });
    await update({ caller: theirs.owner.caller, organizationId: theirs.organizationId, updateMask: ["email_domains"], emailDomains: [domain] });

    const found = await identity.client.organizations.listOrganizationsForEmailDomain({ caller: mine.owner.caller, emailDomain: domain.toUpperCase() });
    expect(found.organizations.map((o) => o.id)).toEqual([mine.organizationId]);
    const outsider = await createOutsider(identity.clients);
    expect((await identity.client.organizations.listOrganizationsForEmailDomain({ caller: outsider.caller, emailDomain: domain })).organizations).toEqual([]);
    await expect(identity.client.organizations.listOrganizationsForEmailDomain({ caller: outsider.caller, emailDomain: "nope" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^email_domain: /),
    });
  });

  it("deletes an invite link once, for admins only", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const other = await createOrganization(identity.clients);
    const reader = await createMember(identity.clients, organizationId);
    const { inviteId } = await identity.client.organizations.createLinkInvite({ organizationId, role: MemberRole.MEMBER_ROLE_COMMENT });

    await expect(identity.client.organizations.deleteLinkInvite({ caller: reader.caller, organizationId, inviteId })).rejects.toMatchObject({
      code: "permission_denied",
    });
    // Another organization's admin cannot reach it through their own organization.
    expect(await identity.client.organizations.deleteLinkInvite({ caller: other.owner.caller, organizationId: other.organizationId, inviteId })).toEqual({
      deleted: false,
    });

    expect(await identity.client.organizations.deleteLinkInvite({ caller: owner.caller, organizationId, inviteId })).toEqual({ deleted: true });
    // Deleting revokes: the row stays (a join through it is told the link was revoked).
    expect((await forkEm(identity.running.orm).findOneOrFail(LinkInvite, { id: inviteId })).revokedAt).toBeInstanceOf(Date);
    expect(await identity.client.organizations.deleteLinkInvite({ caller: owner.caller, organizationId, inviteId })).toEqual({ deleted: false });
    expect(await identity.client.organizations.deleteLinkInvite({ caller: owner.caller, organizationId, inviteId: "nope" })).toEqual({ deleted: false });
  });

  it("validates organization creation", async () => {
    await expect(
      identity.client.organizations.createOrganization({ title: "A", ownerEmail: "a@example.com", ownerDisplayName: "", ownerToken: "" }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      message: "title: must be at least 2 characters",
    });
    await expect(
      identity.client.organizations.createOrganization({ title: "Acme", ownerEmail: "nope", ownerDisplayName: "", ownerToken: "" }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      message: "owner_email: must be a valid e-mail address",
    });
    await expect(
      identity.client.organizations.createOrganization({ title: "Acme", ownerEmail: "a@example.com", ownerDisplayName: "", ownerToken: "secret" }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^owner_token: must start with "imp_"/),
    });
  });
});
