import { decodePayload, keyByOrganization, type ConsumerSpec } from "@imprint/runtime";
import { MemberRemoved, TeamDeleted, TeamMemberAdded, TeamMemberRemoved } from "@imprint/proto/identity/v1/events";
import { isId } from "@imprint/runtime";
import { applyTeamMembershipChange } from "../use-cases/apply-team-membership-change.js";

/**
 * Who is in which team, from identity's events: a member added to a team gets its grants, one
 * removed from it (or from the organization, or whose team is deleted) loses them as soon as the
 * event is handled. Events of one organization are handled in order.
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
          const { teamId, userId } = decodePayload(TeamMemberAdded, envelope);
          return applyTeamMembershipChange(em, { kind: "joined", organizationId, teamId, userId });
        }
        case "team_member.removed": {
          const { teamId, userId } = decodePayload(TeamMemberRemoved, envelope);
          return applyTeamMembershipChange(em, { kind: "left", organizationId, teamId, userId });
        }
        case "team.deleted": {
          const { teamId } = decodePayload(TeamDeleted, envelope);
          return applyTeamMembershipChange(em, { kind: "team_deleted", organizationId, teamId });
        }
        case "member.removed": {
          const { userId } = decodePayload(MemberRemoved, envelope);
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId });
        }
      }
    },
  };
}
