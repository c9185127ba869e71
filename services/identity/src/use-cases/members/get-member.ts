import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { MemberData } from "../shared/views.js";
import { findMembersOfUsers } from "../shared/hot-path-queries.js";
import { withTeamCounts } from "../shared/members.js";
import { Organization } from "../../domain/organization.js";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import { isInstallationPrincipal } from "../../domain/user.js";
import { assertSsoAllowsToken } from "../shared/sso.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface GetMemberInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
}

/** One query reads both the caller's and the target's memberships. */
export async function getMember(em: EntityManager, input: GetMemberInput, deps: UseCaseDeps): Promise<MemberData> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  const userIds = isId(input.userId) ? [...new Set([caller.userId, input.userId])] : [caller.userId];
  const members = await findMembersOfUsers(em, input.organizationId, userIds);
  const callerMember = members.find((member) => member.user.id === caller.userId);
  if (!callerMember || callerMember.disabled) throw AppError.notFound("Organization");
  if (caller.tokenId) {
    const organization = await em.findOne(Organization, input.organizationId, { fields: ["sso", "signInMethods"] });
    await assertSsoAllowsToken(em, {
      organizationId: input.organizationId,
      organizationSso: organization?.sso ?? false,
      signInMethods: organization?.signInMethods ?? [],
      role: callerMember.role ?? null,
      tokenId: caller.tokenId,
      now: deps.clock(),
    });
  }
  const target = members.find((member) => member.user.id === input.userId);
  if (!target || isInstallationPrincipal(target.user)) throw AppError.notFound("Member");
  // A guest cannot list members (docs/permissions.md) and reads only themself: any other member is
  // answered like one that does not exist, so a guest cannot probe who belongs to the organization.
  if (!organizationPermissionsFor(callerMember.role ?? undefined).listMembers && target.user.id !== caller.userId) throw AppError.notFound("Member");
  const [counted] = await withTeamCounts(em, input.organizationId, [target]);
  return counted!;
}
