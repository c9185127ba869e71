import type { EntityManager } from "@mikro-orm/postgresql";
import { Member } from "../../domain/member.js";
import type { Organization } from "../../domain/organization.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import type { User } from "../../domain/user.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { memberAdded, recordIdentityEvent } from "../../events.js";

/** Adds `user` to `organization` with `role` and records `member.added`. */
export function createMember(
  em: EntityManager,
  input: { organization: Organization; user: User; role: MemberRoleValue },
  deps: UseCaseDeps,
  actor: CallerInput | null,
): Member {
  const member = em.create(Member, {
    organization: input.organization,
    user: input.user,
    role: input.role,
    disabled: false,
    sso: false,
    joinedAt: deps.clock(),
    lastSeenAt: null,
    sortName: input.user.displayName.toLowerCase(),
  });
  recordIdentityEvent(em, deps, memberAdded, {
    organizationId: input.organization.id,
    actor,
    payload: { userId: input.user.id, role: input.role },
  });
  return member;
}
