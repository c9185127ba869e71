import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { assertSsoAllowsToken } from "./sso.js";
import { isId } from "./validation.js";

/**
 * The caller's enabled membership of the organization, with the organization loaded in the same
 * query. Any other case (unknown organization, not a member, disabled) is "Organization not
 * found", so callers cannot learn which organizations exist.
 */
export async function requireMembership(em: EntityManager, organizationId: string, userId: string, sso?: { tokenId: string | undefined; now: Date }) {
  if (!isId(organizationId)) throw AppError.notFound("Organization");
  const member = await em.findOne(Member, { organization: organizationId, user: userId, disabled: false }, { populate: ["organization"] });
  if (!member) throw AppError.notFound("Organization");
  if (sso)
    await assertSsoAllowsToken(em, {
      organizationId,
      organizationSso: member.organization.sso,
      signInMethods: member.organization.signInMethods,
      role: member.role ?? null,
      tokenId: sso.tokenId,
      now: sso.now,
    });
  return member;
}
