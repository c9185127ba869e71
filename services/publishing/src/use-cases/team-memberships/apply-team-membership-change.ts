import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, recordEvent, sql, type Actor, type TeamMembershipHooks } from "@imprint/runtime";
import { sitePermissionRemoved } from "../../events.js";

/**
 * What identity's team-membership changes mean to sites, beside publishing's copy of who is in
 * which team (the runtime's applyTeamMembershipChange keeps the copy, in the same transaction): a
 * deleted team's site grants go, a removed member's own grants go (those set before the removal: a
 * grant needs a member, so a later one is of a later membership), each with
 * `site_permission.removed`; and the sites a team is granted move their version when its members
 * change (their answers name the caller's permissions).
 */
export const publishingTeamMembershipHooks: TeamMembershipHooks = {
  teamMembersChanged: async (em, { teamId }) => {
    await executeStatement(em, sql`update sites set version = version + 1 where id in (select site_id from site_team_grants where team_id = ${teamId})`);
  },
  teamDeleted: async (em, { organizationId, teamId }, { actor }) => {
    const removed = await queryRows(
      em,
      sql<{
        site_id: string;
        level: string;
      }>`delete from site_team_grants where organization_id = ${organizationId} and team_id = ${teamId} returning site_id, level`,
    );
    await grantsRemoved(em, organizationId, actor, removed, { userId: "", teamId });
  },
  memberRemoved: async (em, { organizationId, userId }, { actor, occurredAt }) => {
    const removed = await queryRows(
      em,
      sql<{
        site_id: string;
        level: string;
      }>`delete from site_user_grants where organization_id = ${organizationId} and user_id = ${userId} and updated_at <= ${occurredAt}
         returning site_id, level`,
    );
    await grantsRemoved(em, organizationId, actor, removed, { userId, teamId: "" });
  },
};

/** Records `site_permission.removed` for each removed grant and moves its site's version. */
async function grantsRemoved(
  em: EntityManager,
  organizationId: string,
  actor: Actor | null,
  removed: readonly { site_id: string; level: string }[],
  grantee: { userId: string; teamId: string },
): Promise<void> {
  for (const grant of removed) {
    recordEvent(em, sitePermissionRemoved, { organizationId, actor, payload: { siteId: grant.site_id, ...grantee, role: grant.level } });
  }
  if (removed.length === 0) return;
  await executeStatement(em, sql`update sites set version = version + 1 where id = any(${`{${removed.map((grant) => grant.site_id).join(",")}}`}::uuid[])`);
}
