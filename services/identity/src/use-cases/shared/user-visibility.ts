import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { User } from "../../domain/user.js";
import { isId } from "./validation.js";

/**
 * The user, when the caller may see it: itself, or someone sharing an organization where both
 * memberships are enabled. Any other case is "User not found", so callers cannot learn which
 * users exist.
 */
export async function requireVisibleUser(em: EntityManager, callerUserId: string, userId: string): Promise<User> {
  if (!isId(userId)) throw AppError.notFound("User");
  if (userId !== callerUserId) {
    const callerMemberships = await em.find(Member, { user: callerUserId, disabled: false }, { fields: ["organization"] });
    const organizationIds = callerMemberships.map((member) => member.organization.id);
    const shared = organizationIds.length === 0 ? 0 : await em.count(Member, { user: userId, disabled: false, organization: { $in: organizationIds } });
    if (shared === 0) throw AppError.notFound("User");
  }
  const user = await em.findOne(User, userId);
  if (!user) throw AppError.notFound("User");
  return user;
}
