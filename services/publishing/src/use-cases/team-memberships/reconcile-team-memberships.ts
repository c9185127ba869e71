import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";

/**
 * Every organization whose sites have team grants, or whose memberships publishing holds: the ones
 * the runtime's reconciliation of publishing's team-membership copy with identity covers.
 */
export async function knownOrganizations(em: EntityManager): Promise<string[]> {
  const rows = await queryRows(
    em,
    sql<{ organization_id: string }>`select organization_id from site_team_grants union select organization_id from team_memberships order by 1`,
  );
  return rows.map((row) => row.organization_id);
}
