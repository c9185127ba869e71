import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { ApiToken } from "../../domain/api-token.js";
import { Member } from "../../domain/member.js";
import { nextMembershipVersion } from "../../store/organizations.js";
import { User, validateInstallationId } from "../../domain/user.js";
import { memberRemoved, tokenRevoked } from "../../events.js";
import { idOf } from "../shared/queries.js";
import type { UseCaseDeps } from "../../deps.js";

export interface RevokeInstallationTokensInput {
  installationId: string;
}

/**
 * Internal (the integration service, when an installation is deleted): revokes the principal's
 * tokens still valid (`token.revoked` each) and removes its membership (`member.removed`, as a
 * removal of a member does, so other services' cached roles drop). The principal's user stays, so
 * what it did still names it. Idempotent: nothing to do for an unknown installation, or twice.
 */
export async function revokeInstallationTokens(
  em: EntityManager,
  input: RevokeInstallationTokensInput,
  deps: UseCaseDeps,
): Promise<{ revokedTokens: number; memberRemoved: boolean }> {
  const installationId = validateInstallationId("installation_id", input.installationId);
  return deps.unitOfWork.run(em, async (tx) => {
    const principal = await tx.findOne(User, { integrationInstallationId: installationId });
    if (!principal) return { revokedTokens: 0, memberRemoved: false };
    // Expired tokens already fail; only those still valid are revoked.
    const tokens = await tx.find(ApiToken, { user: principal, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: deps.clock() } }] });
    for (const token of tokens) {
      if (token.revoke(deps.clock)) recordEvent(tx, tokenRevoked, { organizationId: null, actor: null, payload: { tokenId: token.id, userId: principal.id } });
    }
    // An installation's principal joins no team, so leaving the organization is all there is.
    const memberships = await tx.find(Member, { user: principal });
    for (const member of memberships) {
      const organizationId = idOf(member.organization);
      const membershipVersion = await nextMembershipVersion(tx, organizationId);
      recordEvent(tx, memberRemoved, { organizationId, actor: null, payload: { userId: principal.id, role: member.role ?? null, membershipVersion } });
      tx.remove(member);
    }
    return { revokedTokens: tokens.length, memberRemoved: memberships.length > 0 };
  });
}
