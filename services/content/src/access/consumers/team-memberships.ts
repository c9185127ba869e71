import { teamMembershipCopyConsumer, type ConsumerSpec } from "@imprint/runtime";
import { applyInviteGrant } from "../use-cases/apply-invite-grant.js";
import { contentTeamMembershipHooks } from "../use-cases/apply-team-membership-change.js";

/**
 * Who is in which team, from identity's events, for spaces' and collections' team grants: the
 * runtime's copy (teamMembershipCopyConsumer: any order of the events ends in identity's state,
 * test/team-memberships-property.test.ts) with content's part, a deleted team's grants and a
 * removed member's direct grants taken away. A member who joined through an invite link to a space
 * or a collection (`member.added` carrying the link's item and level) is granted it, ordered with
 * their removals by the same version (apply-invite-grant.ts).
 */
export function teamMembershipsConsumer(consumer: string, clock: () => Date = () => new Date()): ConsumerSpec {
  return teamMembershipCopyConsumer({
    consumer,
    hooks: contentTeamMembershipHooks,
    onMemberAdded: async (em, event) => {
      const { userId, membershipVersion, inviteSpaceId, inviteCollectionId, inviteLevel } = event.payload;
      const targetId = inviteSpaceId || inviteCollectionId;
      if (!targetId || !inviteLevel) return;
      const actor = event.actor ? { userId: event.actor.userId, tokenId: event.actor.tokenId ?? "" } : null;
      return applyInviteGrant(
        em,
        {
          organizationId: event.organizationId,
          userId,
          target: inviteSpaceId ? "space" : "collection",
          targetId,
          level: inviteLevel,
          version: membershipVersion ?? 0,
          actor,
        },
        clock,
      );
    },
  });
}
