import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { assertSsoAllowsToken } from "../shared/sso.js";
import { isId } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface GetMembershipInput {
  organizationId: string;
  userId: string;
  /** The token of the request being authorized; "" when the check acts for no request. */
  tokenId: string;
}

/** A user's role in an organization, for other services' authorization. */
export async function getMembership(em: EntityManager, input: GetMembershipInput, deps: UseCaseDeps): Promise<{ role: MemberRoleValue; disabled: boolean }> {
  if (!isId(input.organizationId) || !isId(input.userId)) throw AppError.notFound("Member");
  const member = await em.findOne(
    Member,
    { organization: input.organizationId, user: input.userId },
    { fields: ["role", "disabled", "organization.sso", "organization.signInMethods"], populate: ["organization"] },
  );
  if (!member) throw AppError.notFound("Member");
  if (input.tokenId) {
    try {
      await assertSsoAllowsToken(em, {
        organizationId: input.organizationId,
        organizationSso: member.organization.sso,
        signInMethods: member.organization.signInMethods,
        role: member.role ?? null,
        tokenId: input.tokenId,
        now: deps.clock(),
      });
    } catch (error) {
      // A sign-in method the organization does not allow is said (403); anything else is no membership.
      if (error instanceof AppError && error.code === "permission_denied") throw error;
      throw AppError.notFound("Member");
    }
  }
  return { role: member.role ?? null, disabled: member.disabled };
}
