import type { EntityManager } from "@mikro-orm/postgresql";
import type { MemberRole } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "../shared/access.js";
import { grantLevel, requireOrganizationTeams, requireOrganizationUsers, setGrant } from "../shared/site-grants.js";
import { findSite } from "../shared/sites.js";

/** Users and teams one InviteToSite call may name together. */
export const INVITE_TO_SITE_MAX = 100;

export interface InviteToSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  userIds: readonly string[];
  teamIds: readonly string[];
  role: MemberRole;
}

/**
 * Grants each user and team the level on the site, or changes theirs (GitBook's inviteToSite; site
 * admins only), in one transaction: users must be members of the site's organization and teams its
 * own, else nothing changes and the first wrong one is named. Records `site_permission.updated`
 * for each grant that changed (`.removed` for a null role).
 */
export async function inviteToSite(em: EntityManager, input: InviteToSiteInput, deps: UseCaseDeps): Promise<void> {
  const level = grantLevel(input.role);
  if (input.userIds.length + input.teamIds.length === 0) throw AppError.invalidArgument("users: name at least one user or team");
  if (input.userIds.length + input.teamIds.length > INVITE_TO_SITE_MAX)
    throw AppError.invalidArgument(`users: at most ${INVITE_TO_SITE_MAX} users and teams in one call`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "share the site");
  // Seen before anything else is checked: another organization's site, or one the caller cannot see, is 404.
  await findSite(em, access, input.siteId);
  await requireOrganizationUsers(deps, access.organizationId, input.userIds, (index) => `users[${index}]`);
  await requireOrganizationTeams(deps, access.organizationId, input.teamIds, (index) => `teams[${index}]`);
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    for (const userId of new Set(input.userIds)) await setGrant(tx, deps, access.caller, site, { kind: "user", userId }, level);
    for (const teamId of new Set(input.teamIds)) await setGrant(tx, deps, access.caller, site, { kind: "team", teamId }, level);
  });
}
