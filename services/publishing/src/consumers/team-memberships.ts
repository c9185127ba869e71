import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { memberRemoved, teamDeleted, teamMemberAdded, teamMemberRemoved } from "@imprint/proto/identity/v1/event-contracts";
import { applyTeamMembershipChange } from "../use-cases/team-memberships/apply-team-membership-change.js";

/** Identity's events that change who is in which team, or take a member's site grants away. */
export const teamMembershipEvents = [teamMemberAdded, teamMemberRemoved, teamDeleted, memberRemoved] as const;

/**
 * Who is in which team, from identity's events, for sites' team grants: a member added to a team
 * gets its grants, one removed from it (or from the organization, or whose team is deleted) loses
 * them as soon as the event is handled; a member removed from the organization loses their own site
 * grants, a deleted team its grants. Events of one organization come in order from one copy of the
 * stream, but a redelivery or a second replica can hand over an older event after a newer one: each
 * carries the organization's `membershipVersion`, and only a change newer than what publishing holds
 * for its key applies (removals stay as tombstones), so any order ends in identity's state
 * (test/team-memberships.test.ts). The same rule and tables as content's copy.
 */
export function teamMembershipsConsumer(consumer: string): ConsumerSpec {
  return {
    context: "identity",
    consumer,
    filterSubject: "imprint.identity.v1.>",
    // Identity orders team memberships per organization (its `membershipVersion`).
    keyOf: keyByAggregate(teamMembershipEvents),
    handler: handleEvents(teamMembershipEvents, async (event, { em }) => {
      const organizationId = event.organizationId;
      if (!organizationId || !isId(organizationId)) return;
      const origin = { actor: event.actor };
      switch (event.type) {
        case "team_member.added": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "joined", organizationId, teamId, userId, version: membershipVersion }, origin);
        }
        case "team_member.removed": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "left", organizationId, teamId, userId, version: membershipVersion }, origin);
        }
        case "team.deleted": {
          const { teamId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "team_deleted", organizationId, teamId, version: membershipVersion }, origin);
        }
        case "member.removed": {
          const { userId, membershipVersion } = event.payload;
          const removedAt = new Date(event.occurredAt);
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId, version: membershipVersion, removedAt }, origin);
        }
      }
    }),
  };
}
