import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Member } from "../domain/member.js";
import type { MemberRoleValue } from "../domain/roles.js";
import { assertAnotherAdminRemains, lockOrganization, requireAdmin, requireMembership } from "./shared/access.js";
import { memberRoleChanged, recordIdentityEvent } from "../events.js";
import { isId, requireCaller } from "./shared/validation.js";
import type { CallerInput, UseCaseDeps } from "./shared/deps.js";

export interface UpdateMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
  /** null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
}

export const LAST_ADMIN_DEMOTION_MESSAGE = "The last admin of the organization cannot be demoted: make another member admin first";

/** Changes a member's role (admins only); the organization always keeps an enabled admin. */
export async function updateMember(em: EntityManager, input: UpdateMemberInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  const role = input.role;
  if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");

  const result = await deps.unitOfWork.run(em, async (tx) => {
    const callerMember = await requireMembership(tx, input.organizationId, caller.userId);
    requireAdmin(callerMember, "change member roles");
    if (!isId(input.userId)) throw AppError.notFound("Member");
    await lockOrganization(tx, input.organizationId);
    const member = await tx.findOne(
      Member,
      { organization: input.organizationId, user: input.userId },
      { populate: ["user"], refresh: true },
    );
    if (!member) throw AppError.notFound("Member");
    const from = member.role ?? null;
    if (from === role) return { member, changed: false };
    if (role !== "admin") await assertAnotherAdminRemains(tx, member, LAST_ADMIN_DEMOTION_MESSAGE);
    member.role = role;
    recordIdentityEvent(tx, deps, memberRoleChanged, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { userId: input.userId, from, to: role },
    });
    return { member, changed: true };
  });
  return result.member;
}
