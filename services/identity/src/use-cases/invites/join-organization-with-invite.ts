import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned } from "@imprint/runtime";
import { LinkInvite, REFUSALS } from "../../domain/link-invite.js";
import type { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { ALREADY_A_MEMBER, joinAsCaller } from "./shared.js";

export interface JoinOrganizationWithInviteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  inviteId: string;
}

/**
 * Anyone holding a link joins through it, as often as people hold it, until it is revoked; a link
 * that admits nobody now is refused with its reason (REFUSALS), so is any link while the
 * organization turned invite links off. An unknown link, or one of another organization, is not
 * found.
 */
export async function joinOrganizationWithInvite(em: EntityManager, input: JoinOrganizationWithInviteInput, deps: UseCaseDeps): Promise<Member> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Invite");
  return conflictOnUniqueViolation(
    deps.unitOfWork.run(em, async (tx) => {
      // Under the link's row lock: a revocation or update of the link commits first or waits.
      const invite = await findOwned(tx, LinkInvite, { organization: input.organizationId }, input.inviteId, { name: "Invite", lock: true });
      const refusal = invite.refusalAt(deps.clock());
      if (refusal) throw new AppError(REFUSALS[refusal].code, REFUSALS[refusal].message);
      const organization = await tx.findOneOrFail(Organization, input.organizationId);
      if (!organization.inviteLinks) {
        throw AppError.permissionDenied("This organization turned invite links off (inviteLinks: false): ask an admin of the organization");
      }
      return joinAsCaller(tx, organization, caller, invite.joinRole, deps, invite);
    }),
    ALREADY_A_MEMBER,
  );
}
