import { teamMembershipCopyConsumer, type ConsumerSpec } from "@imprint/runtime";
import { publishingTeamMembershipHooks } from "../use-cases/team-memberships/apply-team-membership-change.js";

/**
 * Who is in which team, from identity's events, for sites' team grants: the runtime's copy
 * (teamMembershipCopyConsumer: any order of the events ends in identity's state,
 * test/team-memberships.test.ts), the same rule and tables as content's, with publishing's part: a
 * member removed from the organization loses their own site grants, a deleted team its grants, and
 * the sites a team is granted move their version when its members change.
 */
export function teamMembershipsConsumer(consumer: string): ConsumerSpec {
  return teamMembershipCopyConsumer({ consumer, hooks: publishingTeamMembershipHooks });
}
