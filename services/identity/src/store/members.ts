import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { LAST_ADMIN_DEMOTION_MESSAGE, LAST_ADMIN_REMOVAL_MESSAGE, Member, PEOPLE_ONLY } from "../domain/member.js";
import type { MemberRoleValue } from "../domain/roles.js";

/**
 * The organization always keeps an enabled admin: fails when `member` is its only one. Callers
 * hold the organization's lock (lockOrganization), so two concurrent demotions cannot both see
 * "another admin remains".
 */
async function assertAnotherAdminRemains(em: EntityManager, member: Member, message: string): Promise<void> {
  if (member.role !== "admin" || member.disabled) return;
  // An installation's principal holding the admin role is no admin who can manage the organization.
  const otherAdmins = await em.count(Member, {
    organization: member.organization,
    role: "admin",
    disabled: false,
    id: { $ne: member.id },
    ...PEOPLE_ONLY,
  });
  if (otherAdmins === 0) throw new AppError("failed_precondition", message);
}

/**
 * Gives `member` the role `to` (inside the organization's lock); the last enabled admin cannot be
 * demoted. Answers the change, or null when the member already had that role.
 */
export async function changeMemberRole(em: EntityManager, member: Member, to: MemberRoleValue): Promise<{ from: MemberRoleValue; to: MemberRoleValue } | null> {
  const from = member.role ?? null;
  if (from === to) return null;
  if (to !== "admin") await assertAnotherAdminRemains(em, member, LAST_ADMIN_DEMOTION_MESSAGE);
  member.role = to;
  return { from, to };
}

/** Fails when removing `member` would leave the organization without an enabled admin (inside its lock). */
export async function assertMemberRemovable(em: EntityManager, member: Member): Promise<void> {
  await assertAnotherAdminRemains(em, member, LAST_ADMIN_REMOVAL_MESSAGE);
}
