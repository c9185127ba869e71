import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, isId, sql, type RawBuilder } from "@imprint/runtime";
import { TeamGrant, TeamMembership } from "../domain/team-grants.js";

/** One of identity's team-membership changes, with the organization's `membershipVersion` it carried (0: none). */
export type TeamMembershipChange =
  | { kind: "joined"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "left"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "team_deleted"; organizationId: string; teamId: string; version: number }
  | { kind: "member_removed"; organizationId: string; userId: string; version: number };

/**
 * Takes the organization's team-memberships lock until the transaction ends: a reconciliation and
 * the consumer (of any replica) never interleave their changes of one organization.
 */
export async function lockTeamMemberships(em: EntityManager, organizationId: string): Promise<void> {
  await executeStatement(em, sql`select pg_advisory_xact_lock(hashtextextended(${`team_memberships:${organizationId}`}, 0))`);
}

/**
 * SQL: whether `version` (an event's version) is newer than the stored `column`. An event without a
 * version (0, recorded before versions existed) applies only over state without one either, as
 * before; it never overrides a versioned change.
 */
const newer = (version: RawBuilder<unknown> | number, column: string) => {
  const stored = sql.ref(column);
  return sql`(${version} > ${stored} or (${version} = 0 and ${stored} = 0))`;
};
const excludedVersion = sql.ref("excluded.version");

/**
 * Keeps content's copy of team memberships true to identity's events, whatever their order: each
 * (team, user) row keeps the version of the last change applied and stays as a tombstone when the
 * user leaves; an event that is not newer than what the row, the team's deletion, the user's
 * removal from the organization or the last reconciliation holds changes nothing. So a late,
 * repeated or reordered event never moves the copy backwards (a stale `added` after `removed`
 * cannot give the team's access back), and any order of the same events ends in the same state.
 */
export async function applyTeamMembershipChange(em: EntityManager, change: TeamMembershipChange): Promise<void> {
  const version = Number.isSafeInteger(change.version) && change.version > 0 ? change.version : 0;
  const { organizationId } = change;
  await lockTeamMemberships(em, organizationId);
  switch (change.kind) {
    case "joined":
      if (!isId(change.teamId) || !isId(change.userId)) return;
      await executeStatement(
        em,
        sql`insert into team_memberships (team_id, user_id, organization_id, version, present)
         select ${change.teamId}::uuid, ${change.userId}::uuid, ${organizationId}::uuid, ${version}::int, true
          where not exists (select 1 from deleted_teams d where d.team_id = ${change.teamId})
            and not exists (select 1 from removed_members r where r.organization_id = ${organizationId} and r.user_id = ${change.userId} and not ${newer(version, "r.version")})
            and not exists (select 1 from team_membership_reconciliations c where c.organization_id = ${organizationId} and not ${newer(version, "c.version")})
         on conflict (team_id, user_id) do update set present = true, version = excluded.version
          where ${newer(excludedVersion, "team_memberships.version")}`,
      );
      return;
    case "left":
      if (!isId(change.teamId) || !isId(change.userId)) return;
      // A tombstone even when the row is unknown: the `added` it follows may still be on its way.
      await executeStatement(
        em,
        sql`insert into team_memberships (team_id, user_id, organization_id, version, present) values (${change.teamId}, ${change.userId}, ${organizationId}, ${version}, false)
         on conflict (team_id, user_id) do update set present = false, version = excluded.version
          where ${newer(excludedVersion, "team_memberships.version")}`,
      );
      return;
    case "team_deleted":
      // A team never comes back: its rows and grants go, and the tombstone refuses any later `added`.
      if (!isId(change.teamId)) return;
      await executeStatement(
        em,
        sql`insert into deleted_teams (team_id, organization_id, version) values (${change.teamId}, ${organizationId}, ${version}) on conflict (team_id) do nothing`,
      );
      await em.nativeDelete(TeamMembership, { teamId: change.teamId });
      await em.nativeDelete(TeamGrant, { organizationId, teamId: change.teamId });
      return;
    case "member_removed":
      if (!isId(change.userId)) return;
      await executeStatement(
        em,
        sql`insert into removed_members (organization_id, user_id, version) values (${organizationId}, ${change.userId}, ${version})
         on conflict (organization_id, user_id) do update set version = excluded.version where ${newer(excludedVersion, "removed_members.version")}`,
      );
      // Direct grants of the user go with the membership, but one an invite of a later re-join made (newer) stays.
      await executeStatement(
        em,
        sql`delete from user_grants where organization_id = ${organizationId} and user_id = ${change.userId} and version <= ${version}`,
      );
      // Rows of changes older than the removal become tombstones; a later re-join (newer) stays.
      await executeStatement(
        em,
        sql`update team_memberships set present = false, version = ${version} where organization_id = ${organizationId} and user_id = ${change.userId} and ${newer(version, "version")}`,
      );
      return;
  }
}
