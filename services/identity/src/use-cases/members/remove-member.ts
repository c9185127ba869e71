import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { assertMemberRemovable } from "../../store/members.js";
import { isInstallationPrincipal } from "../../domain/user.js";
import { lockOrganization, nextMembershipVersion } from "../../store/organizations.js";
import { requireMembership } from "../shared/access.js";
import { TeamMember } from "../../domain/team.js";
import { memberRemoved, teamMemberRemoved } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { idOf } from "../shared/queries.js";

export interface RemoveMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
}

/**
 * Removes a member: admins remove anyone, members remove themselves. `false` when the user was
 * not a member; not found for an installation's principal. The organization always keeps an enabled admin.
 */
export async function removeMember(em: EntityManager, input: RemoveMemberInput, deps: UseCaseDeps): Promise<{ removed: boolean }> {
  const caller = requireCaller(input.caller);
  const removed = await deps.unitOfWork.run(em, async (tx) => {
    const callerMember = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    if (input.userId !== caller.userId) callerMember.requireAdmin("remove other members");
    if (!isId(input.userId)) return false;
    await lockOrganization(tx, input.organizationId);
    const membershipVersion = await nextMembershipVersion(tx, input.organizationId);
    const member = await tx.findOne(Member, { organization: input.organizationId, user: input.userId }, { populate: ["user"], refresh: true });
    if (!member) return false;
    // An installation's principal leaves with its installation (RevokeInstallationTokens), not here.
    if (isInstallationPrincipal(member.user)) throw AppError.notFound("Member");
    await assertMemberRemovable(tx, member);
    recordEvent(tx, memberRemoved, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { userId: input.userId, role: member.role ?? null, membershipVersion },
    });
    // Leaving the organization is leaving its teams.
    for (const row of await tx.find(TeamMember, { user: input.userId, team: { organization: input.organizationId } }, { fields: ["team"] })) {
      recordEvent(tx, teamMemberRemoved, {
        organizationId: input.organizationId,
        actor: caller,
        payload: { teamId: idOf(row.team), userId: input.userId, membershipVersion },
      });
      tx.remove(row);
    }
    tx.remove(member);
    return true;
  });
  return { removed };
}
