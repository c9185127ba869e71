import { randomUUID } from "node:crypto";
import { MemberRole } from "@imprint/proto/identity/v1";
import { gitbookClient, type GitBookClient } from "./http.js";
import type { TestStack } from "./stack.js";

/**
 * Test data through identity's administrative RPCs, each with unique names so tests never see each
 * other's rows.
 */
export interface TestUser {
  userId: string;
  email: string;
  token: string;
  api: GitBookClient;
}

export interface TestOrganization {
  organizationId: string;
  title: string;
  owner: TestUser;
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** A new organization whose owner (an admin) holds a fresh token. */
export async function buildOrganization(stack: TestStack, overrides: { title?: string; ownerEmail?: string } = {}): Promise<TestOrganization> {
  const title = overrides.title ?? `Org ${randomUUID().slice(0, 8)}`;
  const email = overrides.ownerEmail ?? uniqueEmail("owner");
  const created = await stack.identity.createOrganization({ title, ownerEmail: email, ownerDisplayName: "", ownerToken: "" });
  return {
    organizationId: created.organizationId,
    title,
    owner: { userId: created.userId, email, token: created.token, api: gitbookClient(stack, created.token) },
  };
}

const ROLE = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  create: MemberRole.MEMBER_ROLE_CREATE,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
  guest: MemberRole.MEMBER_ROLE_GUEST,
} as const;

/** Adds a user (created when unknown) to the organization with `role` and issues them a token. */
export async function buildMember(
  stack: TestStack,
  organization: TestOrganization,
  options: { role?: keyof typeof ROLE; email?: string; displayName?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail(options.role ?? "member");
  if (options.displayName) await stack.identity.createUser({ email, displayName: options.displayName });
  const added = await stack.identity.addMember({ organizationId: organization.organizationId, email, role: ROLE[options.role ?? "read"] });
  const issued = await stack.identity.issueToken({ email, label: "test" });
  return { userId: added.member!.user!.id, email, token: issued.token, api: gitbookClient(stack, issued.token) };
}
