import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member, personMembership } from "../../domain/member.js";
import { requireMembership } from "../shared/access.js";
import { memberSsoEnabled } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface SetMemberSsoInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
}

/** Marks a member as able to sign in through SSO (admins only); idempotent. */
export async function setMemberSso(em: EntityManager, input: SetMemberSsoInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const callerMember = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    callerMember.requireAdmin("manage SSO members");
    if (!isId(input.userId)) throw AppError.notFound("Member");
    const member = await tx.findOne(Member, personMembership(input.organizationId, input.userId), { populate: ["user"] });
    if (!member) throw AppError.notFound("Member");
    if (!member.enableSso()) return { member, changed: false };
    recordEvent(tx, memberSsoEnabled, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { userId: input.userId },
    });
    return { member, changed: true };
  });
  return result.member;
}
