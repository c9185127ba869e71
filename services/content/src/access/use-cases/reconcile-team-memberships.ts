import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, reconcileTeamMembershipCopy, sql, type ReconciliationResult, type TeamMembershipReconcileDeps } from "@imprint/runtime";

/** Every organization content knows (spaces, collections, team grants or memberships): the ones a reconciliation of all covers. */
export async function knownOrganizations(em: EntityManager): Promise<string[]> {
  const rows = await queryRows(
    em,
    sql<{ organization_id: string }>`select organization_id from spaces union select organization_id from collections
     union select organization_id from team_grants union select organization_id from team_memberships order by 1`,
  );
  return rows.map((row) => row.organization_id);
}

/**
 * Makes content's copy of team memberships equal to identity's for one organization, or every one
 * content knows (`organizationId` empty): the runtime's reconciliation (team-membership-reconciliation.ts).
 */
export async function reconcileAllTeamMemberships(
  em: EntityManager,
  input: { organizationId: string; signal?: AbortSignal },
  deps: TeamMembershipReconcileDeps,
): Promise<ReconciliationResult> {
  return reconcileTeamMembershipCopy(em, input, deps, knownOrganizations);
}
