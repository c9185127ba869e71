import { decodePayload, keyByOrganization, type ConsumerSpec } from "@imprint/runtime";
import { MemberRemoved, TeamDeleted, TeamMemberAdded, TeamMemberRemoved } from "@imprint/proto/identity/v1/events";
import { isId } from "@imprint/runtime";
import { applyTeamMembershipChange } from "../use-cases/apply-team-membership-change.js";

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
    keyOf: keyByOrganization,
    handler: async (envelope, { em }) => {
      const organizationId = envelope.organizationId;
      if (!organizationId || !isId(organizationId)) return;
      switch (envelope.type) {
        case "team_member.added": {
          const { teamId, userId, membershipVersion } = decodePayload(TeamMemberAdded, envelope);
          return applyTeamMembershipChange(em, { kind: "joined", organizationId, teamId, userId, version: membershipVersion });
        }
        case "team_member.removed": {
          const { teamId, userId, membershipVersion } = decodePayload(TeamMemberRemoved, envelope);
          return applyTeamMembershipChange(em, { kind: "left", organizationId, teamId, userId, version: membershipVersion });
        }
        case "team.deleted": {
          const { teamId, membershipVersion } = decodePayload(TeamDeleted, envelope);
          return applyTeamMembershipChange(em, { kind: "team_deleted", organizationId, teamId, version: membershipVersion });
        }
        case "member.removed": {
          const { userId, membershipVersion } = decodePayload(MemberRemoved, envelope);
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId, version: membershipVersion });
        }
      }
    },
  };
}
