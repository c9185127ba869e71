import type { EntityManager } from "@mikro-orm/postgresql";
import type { MemberRole } from "@imprint/proto/identity/v1";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "../shared/access.js";
import { grantLevel, requireOrganizationTeams, requireOrganizationUsers, setGrant, type Grantee } from "../shared/site-grants.js";
import { findSite } from "../shared/sites.js";

export interface UpdateSitePermissionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  grantee: Grantee;
  /** MEMBER_ROLE_GUEST takes the grant away. */
  role: MemberRole;
}

/**
 * Grants one user or team a level on the site, or changes it; a null role (MEMBER_ROLE_GUEST) takes
 * the grant away (GitBook's updateUserPermissionInSite, updateTeamPermissionInSite; site admins
 * only). The user must be a member of the organization (`userId`), the team one of its teams
 * (`teamId`). Records `site_permission.updated` (or `.removed`) when it changed.
 */
export async function updateSitePermission(em: EntityManager, input: UpdateSitePermissionInput, deps: UseCaseDeps): Promise<void> {
  const level = grantLevel(input.role);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "share the site");
  await findSite(em, access, input.siteId);
  const { grantee } = input;
  if (level !== null) {
    if (grantee.kind === "user") await requireOrganizationUsers(deps, access.organizationId, [grantee.userId], () => "userId");
    else await requireOrganizationTeams(deps, access.organizationId, [grantee.teamId], () => "teamId");
  }
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    await setGrant(tx, deps, access.caller, site, grantee, level);
  });
}
