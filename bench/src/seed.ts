import { MemberRole } from "@imprint/proto/identity/v1";
import { createIdentityClients } from "@imprint/runtime";

export interface SeededOrganization {
  organizationId: string;
  /** Token of the organization's owner (an admin), used by every benchmark request. */
  token: string;
  members: number;
}

/** Roles handed out round-robin, so the member list looks like a real organization's. */
const ROLES = [MemberRole.MEMBER_ROLE_READ, MemberRole.MEMBER_ROLE_EDIT, MemberRole.MEMBER_ROLE_COMMENT, MemberRole.MEMBER_ROLE_REVIEW];

/**
 * Creates one organization with `members` members (the owner included) through identity's admin
 * gRPC API, the way an operator would with `npm run admin`.
 */
export async function seedOrganization(identityAddress: string, members: number): Promise<SeededOrganization> {
  if (!Number.isInteger(members) || members < 1) throw new Error(`members must be a positive integer, got ${members}`);
  const identity = createIdentityClients(identityAddress, { defaultTimeoutMs: 15_000 });
  try {
    const created = await identity.organizations.createOrganization({
      title: "Benchmark Org",
      ownerEmail: "bench-owner@example.com",
      ownerDisplayName: "Bench Owner",
      ownerToken: "",
    });
    // A few at a time: fast, without turning the seed itself into a load test.
    const emails = Array.from({ length: members - 1 }, (_, i) => `bench-member-${String(i + 1).padStart(4, "0")}@example.com`);
    for (let i = 0; i < emails.length; i += 10) {
      await Promise.all(
        emails
          .slice(i, i + 10)
          .map((email, j) =>
            identity.members.addMember({ organizationId: created.organizationId, email, role: ROLES[(i + j) % ROLES.length] ?? MemberRole.MEMBER_ROLE_READ }),
          ),
      );
    }
    return { organizationId: created.organizationId, token: created.token, members };
  } finally {
    identity.close();
  }
}
