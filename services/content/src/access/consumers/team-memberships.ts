import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { memberAdded, memberRemoved, teamDeleted, teamMemberAdded, teamMemberRemoved } from "@imprint/proto/identity/v1/event-contracts";
import { applyInviteGrant } from "../use-cases/apply-invite-grant.js";
import { applyTeamMembershipChange } from "../use-cases/apply-team-membership-change.js";

/** Identity's events that change who is in which team, or who was granted what by joining. */
const membershipEvents = [teamMemberAdded, teamMemberRemoved, teamDeleted, memberRemoved, memberAdded] as const;

/**
 * Who is in which team, from identity's events: a member added to a team gets its grants, one
 * removed from it (or from the organization, or whose team is deleted) loses them as soon as the
 * event is handled. Events of one organization come in order from one copy of the stream, but a
 * redelivery (after a crash) or a second replica can hand over an older event after a newer one:
 * each carries the organization's `membershipVersion`, and only a change newer than what content
 * holds for its key applies (removals stay as tombstones), so any order ends in identity's state
 * (test/team-memberships-property.test.ts). The reconciliation job repairs a copy that diverged
 * anyway (events lost before this existed): see reconcile-team-memberships.ts.
 * A member who joined through an invite link to a space or a collection (`member.added` carrying
 * the link's item and level) is granted it, ordered with their removals by the same version
 * (apply-invite-grant.ts); their removal from the organization takes their direct grants away.
 */
export function teamMembershipsConsumer(consumer: string, clock: () => Date = () => new Date()): ConsumerSpec {
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
        case "member.added": {
          const { userId, membershipVersion, inviteSpaceId, inviteCollectionId, inviteLevel } = event.payload;
          const targetId = inviteSpaceId || inviteCollectionId;
          if (!targetId || !inviteLevel) return;
          const actor = event.actor ? { userId: event.actor.userId, tokenId: event.actor.tokenId ?? "" } : null;
          return applyInviteGrant(
            em,
            { organizationId, userId, target: inviteSpaceId ? "space" : "collection", targetId, level: inviteLevel, version: membershipVersion ?? 0, actor },
            clock,
          );
        }
        case "member.removed": {
          const { userId, membershipVersion } = event.payload;
          return applyTeamMembershipChange(em, { kind: "member_removed", organizationId, userId, version: membershipVersion });
        }
      }
    }),
  };
}
