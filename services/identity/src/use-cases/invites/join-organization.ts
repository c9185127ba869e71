import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import { User } from "../../domain/user.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { ALREADY_A_MEMBER, joinAsCaller } from "./shared.js";

export interface JoinOrganizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
}

/**
 * A user whose e-mail's domain is one of the organization's e-mail domains joins it with its
 * default role. The organization is not found only when it does not exist: GitBook's answer to
 * anyone else is the 400 naming the domain (a user may join an organization it cannot see yet).
 */
export async function joinOrganization(em: EntityManager, input: JoinOrganizationInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  return conflictOnUniqueViolation(
    deps.unitOfWork.run(em, async (tx) => {
      const organization = await tx.findOne(Organization, input.organizationId);
      if (!organization) throw AppError.notFound("Organization");
      const user = await tx.findOne(User, caller.userId);
      if (!user) throw AppError.unauthenticated();
      const domain = user.email.slice(user.email.lastIndexOf("@") + 1);
      if (!organization.emailDomains.includes(domain)) {
        throw AppError.invalidArgument(`email: the domain ${domain} of your e-mail is not one of the organization's e-mail domains (emailDomains)`);
      }
      return joinAsCaller(tx, organization, caller, organization.defaultRole ?? null, deps);
    }),
    ALREADY_A_MEMBER,
  );
}
