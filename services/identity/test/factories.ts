import { randomUUID } from "node:crypto";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { Caller } from "@imprint/proto/common/v1";
import type { IdentityClient } from "./harness.js";

export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}

export interface TestOwner {
  userId: string;
  email: string;
  token: string;
  caller: Caller;
}

/** A fresh organization whose owner is an admin with a token. */
export async function createOrganization(
  client: IdentityClient,
  overrides: { title?: string; ownerEmail?: string; ownerDisplayName?: string } = {},
): Promise<{ organizationId: string; owner: TestOwner }> {
  const ownerEmail = overrides.ownerEmail ?? uniqueEmail("owner");
  const created = await client.createOrganization({
    title: overrides.title ?? `Organization ${randomUUID().slice(0, 6)}`,
    ownerEmail,
    ownerDisplayName: overrides.ownerDisplayName ?? "Olivia Owner",
    ownerToken: "",
  });
  return {
    organizationId: created.organizationId,
    owner: { userId: created.userId, email: ownerEmail, token: created.token, caller: { userId: created.userId, tokenId: "" } },
  };
}

export interface TestMember {
  userId: string;
  email: string;
  caller: Caller;
}

/** A new user with `displayName`, added to the organization with `role`. */
export async function addMember(
  client: IdentityClient,
  organizationId: string,
  options: { role?: MemberRole; displayName?: string; email?: string } = {},
): Promise<TestMember> {
  const email = options.email ?? uniqueEmail("member");
  await client.createUser({ email, displayName: options.displayName ?? "" });
  const added = await client.addMember({ organizationId, email, role: options.role ?? MemberRole.MEMBER_ROLE_READ });
  const userId = added.member!.user!.id;
  return { userId, email, caller: { userId, tokenId: "" } };
}

/** A user who belongs to no organization of the test. */
export async function createOutsider(client: IdentityClient): Promise<TestMember> {
  const email = uniqueEmail("outsider");
  const { user } = await client.createUser({ email, displayName: "Oscar Outsider" });
  return { userId: user!.id, email, caller: { userId: user!.id, tokenId: "" } };
}
