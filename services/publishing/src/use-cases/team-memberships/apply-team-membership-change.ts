import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, isId, queryRows, recordEvent, sql, type Actor, type RawBuilder } from "@imprint/runtime";
import { sitePermissionRemoved } from "../../events.js";

/** One of identity's team-membership changes, with the organization's `membershipVersion` it carried (0: none). */
export type TeamMembershipChange =
  | { kind: "joined"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "left"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "team_deleted"; organizationId: string; teamId: string; version: number }
  /** `removedAt`: when identity removed the member; their site grants set before then go. */
  | { kind: "member_removed"; organizationId: string; userId: string; version: number; removedAt: Date };

/** Who made the change in identity (recorded on the grant removals it causes). */
export interface ChangeOrigin {
  actor: Actor | null;
}

/**
 * Takes the organization's team-memberships lock until the transaction ends: the consumer's
 * changes of one organization (of any replica) never interleave.
 */
export async function lockTeamMemberships(em: EntityManager, organizationId: string): Promise<void> {
  await executeStatement(em, sql`select pg_advisory_xact_lock(hashtextextended(${`team_memberships:${organizationId}`}, 0))`);
}

/**
 * SQL: whether `version` (an event's version) is newer than the stored `column`. An event without a
 * version (0, recorded before versions existed) applies only over state without one either; it
 * never overrides a versioned change.
 */
const newer = (version: RawBuilder<unknown> | number, column: string) => {
  const stored = sql.ref(column);
  return sql`(${version} > ${stored} or (${version} = 0 and ${stored} = 0))`;
};
const excludedVersion = sql.ref("excluded.version");

/**
 * Keeps publishing's copy of team memberships true to identity's events, whatever their order (the
 * rule content's copy follows, services/content/src/access/use-cases/apply-team-membership-change.ts):
 * each (team, user) row keeps the version of the last change applied and stays as a tombstone when
 * the user leaves; an event that is not newer than what the row, the team's deletion or the user's
 * removal from the organization holds changes nothing. So a late, repeated or reordered event never
 * moves the copy backwards (a stale `added` after `removed` cannot give the team's site grants back),
 * and any order of the same events ends in the same state. Publishing's own part: a deleted team's
 * site grants go, a removed member's own grants go (those set before the removal: a grant needs a
 * member, so a later one is of a later membership), each with `site_permission.removed`; and the
 * sites a team is granted move their version when its members change (their answers name the
 * caller's permissions).
 */
export async function applyTeamMembershipChange(em: EntityManager, change: TeamMembershipChange, origin: ChangeOrigin): Promise<void> {
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
      await touchSitesOfTeam(em, change.teamId);
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
      await touchSitesOfTeam(em, change.teamId);
      return;
    case "team_deleted": {
      // A team never comes back: its rows and grants go, and the tombstone refuses any later `added`.
      if (!isId(change.teamId)) return;
      await executeStatement(
        em,
        sql`insert into deleted_teams (team_id, organization_id, version) values (${change.teamId}, ${organizationId}, ${version}) on conflict (team_id) do nothing`,
      );
      await executeStatement(em, sql`delete from team_memberships where team_id = ${change.teamId}`);
      const removed = await queryRows(
        em,
        sql<{
          site_id: string;
          level: string;
        }>`delete from site_team_grants where organization_id = ${organizationId} and team_id = ${change.teamId} returning site_id, level`,
      );
      for (const grant of removed) {
        recordEvent(em, sitePermissionRemoved, {
          organizationId,
          actor: origin.actor,
          payload: { siteId: grant.site_id, userId: "", teamId: change.teamId, role: grant.level },
        });
      }
      await touchSites(
        em,
        removed.map((grant) => grant.site_id),
      );
      return;
    }
    case "member_removed": {
      if (!isId(change.userId)) return;
      await executeStatement(
        em,
        sql`insert into removed_members (organization_id, user_id, version) values (${organizationId}, ${change.userId}, ${version})
         on conflict (organization_id, user_id) do update set version = excluded.version where ${newer(excludedVersion, "removed_members.version")}`,
      );
      // Rows of changes older than the removal become tombstones; a later re-join (newer) stays.
      await executeStatement(
        em,
        sql`update team_memberships set present = false, version = ${version} where organization_id = ${organizationId} and user_id = ${change.userId} and ${newer(version, "version")}`,
      );
      const removed = await queryRows(
        em,
        sql<{
          site_id: string;
          level: string;
        }>`delete from site_user_grants where organization_id = ${organizationId} and user_id = ${change.userId} and updated_at <= ${change.removedAt}
         returning site_id, level`,
      );
      for (const grant of removed) {
        recordEvent(em, sitePermissionRemoved, {
          organizationId,
          actor: origin.actor,
          payload: { siteId: grant.site_id, userId: change.userId, teamId: "", role: grant.level },
        });
      }
      await touchSites(
        em,
        removed.map((grant) => grant.site_id),
      );
      return;
    }
  }
}

/** Moves the version of the sites a team is granted: who sees them (and how) changed. */
async function touchSitesOfTeam(em: EntityManager, teamId: string): Promise<void> {
  await executeStatement(em, sql`update sites set version = version + 1 where id in (select site_id from site_team_grants where team_id = ${teamId})`);
}

async function touchSites(em: EntityManager, siteIds: readonly string[]): Promise<void> {
  if (siteIds.length === 0) return;
  await executeStatement(em, sql`update sites set version = version + 1 where id = any(${`{${siteIds.join(",")}}`}::uuid[])`);
}
