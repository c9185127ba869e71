import { executeStatement, sql, type TeamMembershipHooks } from "@imprint/runtime";
import { TeamGrant } from "../domain/team-grants.js";

/**
 * What identity's team-membership changes mean to content's grants, beside its copy of who is in
 * which team (the runtime's applyTeamMembershipChange keeps the copy, in the same transaction): a
 * deleted team's grants go, and so do a removed member's direct grants.
 */
export const contentTeamMembershipHooks: TeamMembershipHooks = {
  teamDeleted: async (em, { organizationId, teamId }) => {
    await em.nativeDelete(TeamGrant, { organizationId, teamId });
  },
  memberRemoved: async (em, { organizationId, userId, version }) => {
    // Direct grants of the user go with the membership, but one an invite of a later re-join made (newer) stays.
    await executeStatement(em, sql`delete from user_grants where organization_id = ${organizationId} and user_id = ${userId} and version <= ${version}`);
  },
};
