import { defineEntity, p } from "@mikro-orm/postgresql";

// The tables of a service's copy of team memberships (team-membership-copy.ts and
// team-membership-reconciliation.ts write them in SQL): defined once here, listed by each service
// that keeps the copy among its own entities, and created by each service's own migrations.

/**
 * Who is in which team: identity's team memberships as a service keeps them (content for spaces'
 * and collections' team grants, publishing for sites'), fed by identity's events
 * (team_member.added/removed, team.deleted, member.removed) through team-membership-copy.ts, so an
 * access check never asks identity and a member who leaves a team loses its grants as soon as the
 * event is handled.
 * A row is kept after its user left the team (`present` false, a tombstone) with the
 * organization's team-membership `version` of the last change applied to it: an event that is not
 * newer changes nothing, so a late or repeated one never gives the access back.
 */
export const TeamMembershipSchema = defineEntity({
  name: "TeamMembership",
  tableName: "team_memberships",
  properties: {
    teamId: p.uuid().primary(),
    userId: p.uuid().primary(),
    organizationId: p.uuid(),
    /** identity's `membershipVersion` of the last change applied (0: before versions existed). */
    version: p.integer().default(0),
    /** In the team (false: a tombstone of a removal). */
    present: p.boolean().default(true),
  },
  indexes: [{ properties: ["organizationId", "userId"], name: "team_memberships_organization_user_index" }],
});
export class TeamMembership extends TeamMembershipSchema.class {}
TeamMembershipSchema.setClass(TeamMembership);

/** A team identity deleted: it never comes back, so no late `team_member.added` adds anyone to it. */
export const DeletedTeamSchema = defineEntity({
  name: "DeletedTeam",
  tableName: "deleted_teams",
  properties: {
    teamId: p.uuid().primary(),
    organizationId: p.uuid(),
    /** The `membershipVersion` of `team.deleted`. */
    version: p.integer(),
  },
});
export class DeletedTeam extends DeletedTeamSchema.class {}
DeletedTeamSchema.setClass(DeletedTeam);

/**
 * A user's last removal from an organization (`member.removed`): a `team_member.added` of the user
 * there with a version not newer is older than the removal and ignored (re-added later, the user's
 * new team events are newer).
 */
export const RemovedMemberSchema = defineEntity({
  name: "RemovedMember",
  tableName: "removed_members",
  properties: {
    organizationId: p.uuid().primary(),
    userId: p.uuid().primary(),
    /** The `membershipVersion` of the removal. */
    version: p.integer(),
  },
});
export class RemovedMember extends RemovedMemberSchema.class {}
RemovedMemberSchema.setClass(RemovedMember);

/**
 * The last reconciliation of an organization's team memberships with identity: the copy was made
 * equal to identity's at `version`, so an event with a version not newer is already in it.
 */
export const TeamMembershipReconciliationSchema = defineEntity({
  name: "TeamMembershipReconciliation",
  tableName: "team_membership_reconciliations",
  properties: {
    organizationId: p.uuid().primary(),
    /** identity's `membershipVersion` the copy was made equal to. */
    version: p.integer(),
    reconciledAt: p.datetime(),
  },
});
export class TeamMembershipReconciliation extends TeamMembershipReconciliationSchema.class {}
TeamMembershipReconciliationSchema.setClass(TeamMembershipReconciliation);

/** The entities of the team-membership copy, for the entity list of a service that keeps it. */
export const teamMembershipCopyEntities = [TeamMembership, DeletedTeam, RemovedMember, TeamMembershipReconciliation];
