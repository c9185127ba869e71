import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { Member, personMembership } from "../../domain/member.js";
import { changeMemberRole } from "../../store/members.js";
import { lockOrganization } from "../../store/organizations.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { requireMembership } from "../shared/access.js";
import { memberRoleChanged } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface UpdateMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
  /** Field paths: role, the one field a member's update changes. */
  updateMask: string[];
  /** null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
}

/** Changes a member's role (admins only); the organization always keeps an enabled admin. */
export async function updateMember(em: EntityManager, input: UpdateMemberInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  parseUpdateMask(input.updateMask, ["role"]);
  const role = input.role;
  if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");

  const result = await deps.unitOfWork.run(em, async (tx) => {
    const callerMember = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    callerMember.requireAdmin("change member roles");
    if (!isId(input.userId)) throw AppError.notFound("Member");
    await lockOrganization(tx, input.organizationId);
    const member = await tx.findOne(Member, personMembership(input.organizationId, input.userId), { populate: ["user"], refresh: true });
    if (!member) throw AppError.notFound("Member");
    const change = await changeMemberRole(tx, member, role);
    if (!change) return { member, changed: false };
    recordEvent(tx, memberRoleChanged, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { userId: input.userId, ...change },
    });
    return { member, changed: true };
  });
  return result.member;
}
