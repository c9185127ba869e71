import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { memberRemoved, teamDeleted, teamMemberAdded, teamMemberRemoved } from "@imprint/proto/identity/v1/event-contracts";
import { applyTeamMembershipChange } from "../use-cases/apply-team-membership-change.js";

/** Identity's events that change who is in which team. */
const membershipEvents = [teamMemberAdded, teamMemberRemoved, teamDeleted, memberRemoved] as const;

/**
 * Who is in which team, from identity's events: a member added to a team gets its grants, one
 * removed from it (or from the organization, or whose team is deleted) loses them as soon as the
 * event is handled. Events of one organization come in order from one copy of the stream, but a
 * redelivery (after a crash) or a second replica can hand over an older event after a newer one:
 * each carries the organization's `membershipVersion`, and only a change newer than what content
 * holds for its key applies (removals stay as tombstones), so any order ends in identity's state
 * (test/team-memberships-property.test.ts). The reconciliation job repairs a copy that diverged
 * anyway (events lost before this existed): see reconcile-team-memberships.ts.
 */
export function teamMembershipsConsumer(consumer: string): ConsumerSpec {
  return {
    context: "identity",
    consumer,
    filterSubject: "imprint.identity.v1.>",
    // Identity orders team memberships per organization (its `membershipVersion`).
    keyOf: keyByAggregate(membershipEvents),
    handler: handleEvents(membershipEvents, async (event, { em }) => {
      const organizationId = event.organizationId;
      if (!organizationId || !isId(organizationId)) return;
      switch (event.type) {
        case "team_member.added": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "joined", organizationId, teamId, userId, version: membershipVersion });
        }
        case "team_member.removed": {
          const { teamId, userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "left", organizationId, teamId, userId, version: membershipVersion });
        }
        case "team.deleted": {
          const { teamId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "team_deleted", organizationId, teamId, version: membershipVersion });
        }
        case "member.removed": {
          const { userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId, version: membershipVersion });
        }
      }
    }),
  };
}
