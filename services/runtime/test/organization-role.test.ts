import { MemberRole } from "@imprint/proto/identity/v1";
import { describe, expect, it } from "vitest";
import { organizationStanding, requireOrganizationRole } from "../src/access/organization-role.js";
import { callerMessage } from "../src/caller.js";
import { AppError } from "../src/errors.js";

const ORG = "6b1e1f3c-2f0a-4f57-9d3e-2a9c3f1b7a10";
const ids = {
  admin: "0f8fad5b-d9cb-469f-a165-70867728950e",
  editor: "1f8fad5b-d9cb-469f-a165-70867728950e",
  guest: "2f8fad5b-d9cb-469f-a165-70867728950e",
  stranger: "3f8fad5b-d9cb-469f-a165-70867728950e",
};
const roles: Record<string, MemberRole> = {
  [ids.admin]: MemberRole.MEMBER_ROLE_ADMIN,
  [ids.editor]: MemberRole.MEMBER_ROLE_EDIT,
  [ids.guest]: MemberRole.MEMBER_ROLE_GUEST,
};
// The roles identity would answer (what a MembershipCache hands out), for one organization.
const deps = {
  memberships: {
    get: (organizationId: string, userId: string) => Promise.resolve(organizationId === ORG && roles[userId] !== undefined ? { role: roles[userId] } : null),
  },
};
const notFound = new AppError("not_found", "Organization not found");

describe("the organization check", () => {
  it("lets through who has what the call needs, with their role", async () => {
    expect(await requireOrganizationRole(deps, { userId: ids.admin, tokenId: "t" }, ORG, "admin", "change sites")).toEqual({
      caller: { userId: ids.admin, tokenId: "t" },
      organizationId: ORG,
      role: MemberRole.MEMBER_ROLE_ADMIN,
      admin: true,
    });
    expect((await requireOrganizationRole(deps, { userId: ids.editor }, ORG, "member")).admin).toBe(false);
    expect((await requireOrganizationRole(deps, { userId: ids.guest }, ORG, "guest")).role).toBe(MemberRole.MEMBER_ROLE_GUEST);
  });

  it("answers not_found to who cannot see the organization, permission_denied to a member who is not an admin", async () => {
    await expect(requireOrganizationRole(deps, { userId: ids.stranger }, ORG, "guest")).rejects.toThrow(notFound);
    await expect(requireOrganizationRole(deps, { userId: ids.guest }, ORG, "member")).rejects.toThrow(notFound);
    await expect(requireOrganizationRole(deps, { userId: ids.guest }, ORG, "admin")).rejects.toThrow(notFound);
    await expect(requireOrganizationRole(deps, { userId: ids.admin }, "not-an-id", "member")).rejects.toThrow(notFound);
    await expect(requireOrganizationRole(deps, { userId: "not-an-id" }, ORG, "member")).rejects.toThrow(notFound);
    await expect(requireOrganizationRole(deps, { userId: ids.editor }, ORG, "admin", "publish integrations")).rejects.toThrow(
      new AppError("permission_denied", "Only organization admins can publish integrations"),
    );
    await expect(requireOrganizationRole(deps, undefined, ORG, "member")).rejects.toThrow(new AppError("unauthenticated", "caller: required"));
  });

  it("tells a caller's standing without refusing, and the caller's message for other services", async () => {
    expect(await organizationStanding(deps, { userId: ids.guest }, ORG)).toEqual({ role: MemberRole.MEMBER_ROLE_GUEST, member: false, admin: false });
    expect(await organizationStanding(deps, { userId: ids.editor }, ORG)).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT, member: true, admin: false });
    expect(await organizationStanding(deps, { userId: ids.stranger }, ORG)).toEqual({ role: null, member: false, admin: false });
    expect(callerMessage({ userId: ids.editor })).toEqual({ userId: ids.editor, tokenId: "" });
    expect(callerMessage({ userId: ids.editor, tokenId: "t" })).toEqual({ userId: ids.editor, tokenId: "t" });
  });
});
