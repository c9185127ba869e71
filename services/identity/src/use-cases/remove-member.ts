import type { EntityManager } from "@mikro-orm/postgresql";
import { Member } from "../domain/member.js";
import { assertAnotherAdminRemains, lockOrganization, requireAdmin, requireMembership } from "./shared/access.js";
import { memberRemoved, recordIdentityEvent } from "../events.js";
import { isId, requireCaller } from "./shared/validation.js";
import type { CallerInput, UseCaseDeps } from "./shared/deps.js";

export interface RemoveMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
}

export const LAST_ADMIN_REMOVAL_MESSAGE = "The last admin of the organization cannot be removed: make another member admin first";

/**
 * Removes a member: admins remove anyone, members remove themselves. `false` when the user was
 * not a member. The organization always keeps an enabled admin.
 */
export async function removeMember(em: EntityManager, input: RemoveMemberInput, deps: UseCaseDeps): Promise<{ removed: boolean }> {
  const caller = requireCaller(input.caller);
  const removed = await deps.unitOfWork.run(em, async (tx) => {
    const callerMember = await requireMembership(tx, input.organizationId, caller.userId);
    if (input.userId !== caller.userId) requireAdmin(callerMember, "remove other members");
    if (!isId(input.userId)) return false;
    await lockOrganization(tx, input.organizationId);
    const member = await tx.findOne(Member, { organization: input.organizationId, user: input.userId }, { refresh: true });
    if (!member) return false;
    await assertAnotherAdminRemains(tx, member, LAST_ADMIN_REMOVAL_MESSAGE);
    recordIdentityEvent(tx, deps, memberRemoved, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { userId: input.userId, role: member.role ?? null },
    });
    tx.remove(member);
    return true;
  });
  return { removed };
}

