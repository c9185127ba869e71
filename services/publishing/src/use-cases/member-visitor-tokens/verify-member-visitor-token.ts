import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "@imprint/runtime";
import { verifyMemberToken, type MemberClaims } from "../../domain/member-visitor-token.js";
import { OrganizationVisitorKey } from "../../domain/organization-visitor-key.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Whether a member visitor token was signed for the organization with its key and is still valid
 * (the reader accepts it on the organization's `visitor-auth` sites); its claims when it is.
 */
export async function verifyMemberVisitorToken(
  em: EntityManager,
  input: { organizationId: string; token: string },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<(MemberClaims & { expiresAt: Date }) | null> {
  if (!isId(input.organizationId) || input.token.length === 0 || input.token.length > 8192) return null;
  const found = await em.findOne(OrganizationVisitorKey, { organizationId: input.organizationId });
  if (!found) return null;
  return verifyMemberToken(found.key, input.organizationId, input.token, deps.clock());
}
