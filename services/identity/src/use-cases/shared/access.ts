import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import { isId } from "./validation.js";

/**
 * The caller's enabled membership of the organization, with the organization loaded in the same
 * query. Any other case (unknown organization, not a member, disabled) is "Organization not
 * found", so callers cannot learn which organizations exist.
 */
export async function requireMembership(em: EntityManager, organizationId: string, userId: string) {
  if (!isId(organizationId)) throw AppError.notFound("Organization");
  const member = await em.findOne(
    Member,
    { organization: organizationId, user: userId, disabled: false },
    { populate: ["organization"] },
  );
  if (!member) throw AppError.notFound("Organization");
  return member;
}

export function requireAdmin(member: Member, action: string): void {
  if (member.role !== "admin") throw AppError.permissionDenied(`Only admins of the organization can ${action}`);
}

/**
 * Locks the organization row for the rest of the transaction. Every change that may drop the
 * number of admins takes this lock first, so two concurrent demotions cannot both see "another
 * admin remains" and leave the organization without one.
 */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await em.findOneOrFail(Organization, organizationId, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** Fails when `member` is the organization's only enabled admin (call inside the organization lock). */
export async function assertAnotherAdminRemains(em: EntityManager, member: Member, message: string): Promise<void> {
  if (member.role !== "admin" || member.disabled) return;
  const otherAdmins = await em.count(Member, {
    organization: member.organization,
    role: "admin",
    disabled: false,
    id: { $ne: member.id },
  });
  if (otherAdmins === 0) throw new AppError("failed_precondition", message);
}
