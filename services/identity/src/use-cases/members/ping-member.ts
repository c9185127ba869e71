import type { EntityManager } from "@mikro-orm/postgresql";
import type { Member } from "../../domain/member.js";
import { requireMembership } from "../shared/access.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface PingMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
}

/** Records that the caller was active in the organization now. */
export async function pingMember(em: EntityManager, input: PingMemberInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  const member = await requireMembership(em, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  member.recordActivity(deps.clock());
  await em.flush();
  await em.populate(member, ["user"]);
  return member;
}
