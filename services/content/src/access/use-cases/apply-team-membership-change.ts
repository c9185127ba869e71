import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "@imprint/runtime";
import { TeamGrant, TeamMembership } from "../domain/team-grants.js";

export type TeamMembershipChange =
  | { kind: "joined"; organizationId: string; teamId: string; userId: string }
  | { kind: "left"; organizationId: string; teamId: string; userId: string }
  | { kind: "team_deleted"; organizationId: string; teamId: string }
  | { kind: "member_removed"; organizationId: string; userId: string };

/** Keeps content's copy of team memberships true to identity's events (idempotent: a replayed event changes nothing). */
export async function applyTeamMembershipChange(em: EntityManager, change: TeamMembershipChange): Promise<void> {
  switch (change.kind) {
    case "joined":
      if (!isId(change.teamId) || !isId(change.userId)) return;
      await em.getConnection().execute(
        `insert into team_memberships (team_id, user_id, organization_id) values (?, ?, ?) on conflict do nothing`,
        [change.teamId, change.userId, change.organizationId],
      );
      return;
    case "left":
      if (!isId(change.teamId) || !isId(change.userId)) return;
      await em.nativeDelete(TeamMembership, { teamId: change.teamId, userId: change.userId });
      return;
    case "team_deleted":
      // A deleted team's grants go with it.
      if (!isId(change.teamId)) return;
      await em.nativeDelete(TeamMembership, { teamId: change.teamId });
      await em.nativeDelete(TeamGrant, { organizationId: change.organizationId, teamId: change.teamId });
      return;
    case "member_removed":
      if (!isId(change.userId)) return;
      await em.nativeDelete(TeamMembership, { organizationId: change.organizationId, userId: change.userId });
      return;
  }
}
