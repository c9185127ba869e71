import { randomUUID } from "node:crypto";
import type { Caller } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { Collection } from "@imprint/proto/content/v1/collections";
import { SpaceEditMode, type Space } from "@imprint/proto/content/v1/spaces";
import type { ContentHarness } from "./harness.js";

/**
 * Test data through identity's administrative RPCs and the content service's own RPCs, with
 * unique names so tests never see each other's rows.
 */
export interface TestUser {
  userId: string;
  email: string;
  caller: Caller;
}

export interface TestOrganization {
  organizationId: string;
  /** The owner: an admin of the organization. */
  owner: TestUser;
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

export type RoleName = "admin" | "create" | "review" | "edit" | "comment" | "read" | "guest";

const MEMBER_ROLE: Record<RoleName, MemberRole> = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  create: MemberRole.MEMBER_ROLE_CREATE,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
  guest: MemberRole.MEMBER_ROLE_GUEST,
};

export function memberRole(role: RoleName): MemberRole {
  return MEMBER_ROLE[role];
}

/** A new organization whose owner is an admin. */
export async function createOrganization(harness: Pick<ContentHarness, "identity">): Promise<TestOrganization> {
  const email = uniqueEmail("owner");
  const created = await harness.identity.createOrganization({
    title: `Org ${randomUUID().slice(0, 8)}`,
    ownerEmail: email,
    ownerDisplayName: "Olivia Owner",
    ownerToken: "",
  });
  return { organizationId: created.organizationId, owner: { userId: created.userId, email, caller: { userId: created.userId, tokenId: "" } } };
}

/** A new user added to the organization with `role`. */
export async function addMember(harness: Pick<ContentHarness, "identity">, organizationId: string, role: RoleName = "read"): Promise<TestUser> {
  const email = uniqueEmail(role);
  const added = await harness.identity.addMember({ organizationId, email, role: memberRole(role) });
  const userId = added.member!.user!.id;
  return { userId, email, caller: { userId, tokenId: "" } };
}

/** An existing user (e.g. an owner of another organization) added to `organizationId` with `role`. */
export async function addExistingUser(harness: Pick<ContentHarness, "identity">, organizationId: string, user: TestUser, role: RoleName): Promise<void> {
  await harness.identity.addMember({ organizationId, email: user.email, role: memberRole(role) });
}

/** A user who belongs to no organization of the test. */
export async function createOutsider(harness: Pick<ContentHarness, "identity">): Promise<TestUser> {
  const email = uniqueEmail("outsider");
  const { user } = await harness.identity.createUser({ email, displayName: "Oscar Outsider" });
  return { userId: user!.id, email, caller: { userId: user!.id, tokenId: "" } };
}

/** A space created by `caller` (default: the organization's owner). */
export async function createSpace(
  harness: Pick<ContentHarness, "spaces">,
  organization: TestOrganization,
  overrides: { title?: string; emoji?: string; parentId?: string; caller?: Caller } = {},
): Promise<Space> {
  const response = await harness.spaces.createSpace({
    caller: overrides.caller ?? organization.owner.caller,
    organizationId: organization.organizationId,
    title: overrides.title ?? `Space ${randomUUID().slice(0, 6)}`,
    emoji: overrides.emoji ?? "",
    parentId: overrides.parentId ?? "",
    editMode: SpaceEditMode.SPACE_EDIT_MODE_UNSPECIFIED,
  });
  return response.space!;
}

/** A collection created by `caller` (default: the organization's owner). */
export async function createCollection(
  harness: Pick<ContentHarness, "collections">,
  organization: TestOrganization,
  overrides: { title?: string; parentId?: string; caller?: Caller } = {},
): Promise<Collection> {
  const response = await harness.collections.createCollection({
    caller: overrides.caller ?? organization.owner.caller,
    organizationId: organization.organizationId,
    title: overrides.title ?? `Collection ${randomUUID().slice(0, 6)}`,
    parentId: overrides.parentId ?? "",
  });
  return response.collection!;
}
