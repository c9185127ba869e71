import { defineEntity, p } from "@mikro-orm/postgresql";
import { LEVELS, type Level } from "./levels.js";

/** What a team's grant is on: a space, or a collection (and everything inside it). */
export const GRANT_TARGETS = ["space", "collection"] as const;
export type GrantTarget = (typeof GRANT_TARGETS)[number];

/**
 * A team's level on a space or a collection (GitBook's team permissions). It adds to what members
 * of the team have by their own role and the item's default level, never takes away; on a
 * collection it reaches every collection and space inside it.
 */
export const TeamGrantSchema = defineEntity({
  name: "TeamGrant",
  tableName: "team_grants",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    teamId: p.uuid(),
    targetType: p.enum(GRANT_TARGETS),
    targetId: p.uuid(),
    level: p.enum(LEVELS),
    createdAt: p.datetime(),
  },
  uniques: [{ properties: ["targetType", "targetId", "teamId"], name: "team_grants_target_team_unique" }],
  indexes: [{ properties: ["organizationId", "teamId"], name: "team_grants_organization_team_index" }],
});
export class TeamGrant extends TeamGrantSchema.class {}
TeamGrantSchema.setClass(TeamGrant);

/**
 * Who is in which team: identity's team memberships as content keeps them, fed by identity's
 * events (team_member.added/removed, team.deleted, member.removed), so an access check never asks
 * identity and a member who leaves a team loses its grants as soon as the event is handled.
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

/** The better of two levels (no level is the worst). */
export function better(a: Level | null, b: Level | null): Level | null {
  if (a === null) return b;
  if (b === null) return a;
  return LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b;
}

/**
 * The levels a user was granted, directly or through their teams, by space and by collection (the
 * best where several grants meet).
 */
export interface GrantedLevels {
  spaces: ReadonlyMap<string, Level>;
  collections: ReadonlyMap<string, Level>;
}

export const NO_GRANTED_LEVELS: GrantedLevels = { spaces: new Map(), collections: new Map() };
