import type { EntityManager } from "@mikro-orm/postgresql";
import { memberAdded, memberRemoved, teamDeleted, teamMemberAdded, teamMemberRemoved } from "@imprint/proto/identity/v1/event-contracts";
import { isId } from "../caller.js";
import { executeStatement, sql, type RawBuilder } from "../db/sql.js";
import type { Actor } from "../events/envelope.js";
import { handleEvents, type DecodedEvent } from "../events/handle-events.js";
import { keyByAggregate } from "../events/subscribe.js";
import type { ConsumerSpec } from "../service.js";

/**
 * A service's copy of who is in which team, kept from identity's events (content's for spaces' and
 * collections' team grants, publishing's for sites'). The tables are each service's own, with the
 * same names and columns: `team_memberships` (team_id, user_id, organization_id, version, present),
 * `deleted_teams` (team_id, organization_id, version), `removed_members` (organization_id, user_id,
 * version) and `team_membership_reconciliations` (organization_id, version, reconciled_at). What
 * else a change means to the service (its grants going, its items' versions moving) are its hooks,
 * run in the change's transaction.
 */

/** One of identity's team-membership changes, with the organization's `membershipVersion` it carried (0: none). */
export type TeamMembershipChange =
  | { kind: "joined"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "left"; organizationId: string; teamId: string; userId: string; version: number }
  | { kind: "team_deleted"; organizationId: string; teamId: string; version: number }
  | { kind: "member_removed"; organizationId: string; userId: string; version: number };

/** The event a change came from: who made it in identity, and when. */
export interface TeamMembershipChangeOrigin {
  actor: Actor | null;
  occurredAt: Date;
}

/**
 * What a service does beside its copy, in the same transaction, once the change's ids are checked
 * (ids are valid uuids, `version` is the change's version with a missing one as 0).
 */
export interface TeamMembershipHooks {
  /** A user joined or left the team (also when the copy already held a newer change). */
  teamMembersChanged?(em: EntityManager, change: Extract<TeamMembershipChange, { kind: "joined" | "left" }>, origin: TeamMembershipChangeOrigin): Promise<void>;
  /** The team was deleted: its rows are gone, its grants should go. */
  teamDeleted?(em: EntityManager, change: Extract<TeamMembershipChange, { kind: "team_deleted" }>, origin: TeamMembershipChangeOrigin): Promise<void>;
  /** The user was removed from the organization: their rows older than the removal are tombstones. */
  memberRemoved?(em: EntityManager, change: Extract<TeamMembershipChange, { kind: "member_removed" }>, origin: TeamMembershipChangeOrigin): Promise<void>;
}

/**
 * Takes the organization's team-memberships lock until the transaction ends: a reconciliation and
 * the consumer (of any replica) never interleave their changes of one organization.
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
 * Keeps the service's copy of team memberships true to identity's events, whatever their order:
 * each (team, user) row keeps the version of the last change applied and stays as a tombstone when
 * the user leaves; an event that is not newer than what the row, the team's deletion, the user's
 * removal from the organization or the last reconciliation holds changes nothing. So a late,
 * repeated or reordered event never moves the copy backwards (a stale `added` after `removed`
 * cannot give the team's access back), and any order of the same events ends in the same state.
 */
export async function applyTeamMembershipChange(
  em: EntityManager,
  change: TeamMembershipChange,
  hooks: TeamMembershipHooks,
  origin: TeamMembershipChangeOrigin,
): Promise<void> {
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
      await hooks.teamMembersChanged?.(em, { ...change, version }, origin);
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
      await hooks.teamMembersChanged?.(em, { ...change, version }, origin);
      return;
    case "team_deleted":
      // A team never comes back: its rows go, and the tombstone refuses any later `added`.
      if (!isId(change.teamId)) return;
      await executeStatement(
        em,
        sql`insert into deleted_teams (team_id, organization_id, version) values (${change.teamId}, ${organizationId}, ${version}) on conflict (team_id) do nothing`,
      );
      await executeStatement(em, sql`delete from team_memberships where team_id = ${change.teamId}`);
      await hooks.teamDeleted?.(em, { ...change, version }, origin);
      return;
    case "member_removed":
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
      await hooks.memberRemoved?.(em, { ...change, version }, origin);
      return;
  }
}

/** Identity's events that change who is in which team. */
export const teamMembershipEvents = [teamMemberAdded, teamMemberRemoved, teamDeleted, memberRemoved] as const;
const teamMembershipAndJoinEvents = [...teamMembershipEvents, memberAdded] as const;

/** `member.added` of an organization (a valid id), for a service that also acts on joins. */
export type MemberAddedEvent = DecodedEvent<typeof memberAdded> & { organizationId: string };

export interface TeamMembershipCopyConsumerOptions {
  /** The durable consumer's name. */
  consumer: string;
  hooks: TeamMembershipHooks;
  /** Also handles `member.added`, ordered with the team events of its organization (e.g. what a join grants). */
  onMemberAdded?: (em: EntityManager, event: MemberAddedEvent) => Promise<void>;
}

/**
 * Who is in which team, from identity's events: a member added to a team gets its grants, one
 * removed from it (or from the organization, or whose team is deleted) loses them as soon as the
 * event is handled. Events of one organization come in order from one copy of the stream, but a
 * redelivery (after a crash) or a second replica can hand over an older event after a newer one:
 * each carries the organization's `membershipVersion`, and only a change newer than what the copy
 * holds for its key applies (removals stay as tombstones), so any order ends in identity's state.
 * The reconciliation job repairs a copy that diverged anyway (team-membership-reconciliation.ts).
 */
export function teamMembershipCopyConsumer(options: TeamMembershipCopyConsumerOptions): ConsumerSpec {
  const { hooks, onMemberAdded } = options;
  const events = onMemberAdded ? teamMembershipAndJoinEvents : teamMembershipEvents;
  return {
    context: "identity",
    consumer: options.consumer,
    filterSubject: "imprint.identity.v1.>",
    // Identity orders team memberships per organization (its `membershipVersion`).
    keyOf: keyByAggregate(events),
    handler: handleEvents(events, async (event, { em }) => {
      const organizationId = event.organizationId;
      if (!organizationId || !isId(organizationId)) return;
      const origin = { actor: event.actor, occurredAt: new Date(event.occurredAt) };
      switch (event.type) {
        case "team_member.added": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "joined", organizationId, teamId, userId, version: membershipVersion }, hooks, origin);
        }
        case "team_member.removed": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "left", organizationId, teamId, userId, version: membershipVersion }, hooks, origin);
        }
        case "team.deleted": {
          const { teamId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "team_deleted", organizationId, teamId, version: membershipVersion }, hooks, origin);
        }
        case "member.removed": {
          const { userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId, version: membershipVersion }, hooks, origin);
        }
        case "member.added":
          return onMemberAdded?.(em, { ...event, organizationId });
      }
    }),
  };
}
