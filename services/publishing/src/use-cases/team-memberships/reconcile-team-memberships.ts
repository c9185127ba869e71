import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, isId, queryRows, sql } from "@imprint/runtime";
import type { Clock, IdentityClients, Logger, UnitOfWork } from "@imprint/runtime";
import { lockTeamMemberships } from "./apply-team-membership-change.js";

/** What the reconciliation of team memberships with identity needs. */
export interface ReconcileDeps {
  identity: { teams: Pick<IdentityClients["teams"], "listTeamMemberships"> };
  clock: Clock;
  unitOfWork: UnitOfWork;
  logger: Logger;
}

/** What one reconciliation changed. */
export interface ReconciliationResult {
  organizations: number;
  added: number;
  removed: number;
}

/**
 * Makes publishing's copy of an organization's team memberships equal to identity's (ListTeamMemberships,
 * one snapshot at identity's `membershipVersion` V): rows publishing lacks are added, rows identity
 * does not have become tombstones, both at version V; rows of newer changes (version above V,
 * applied meanwhile) stay. V is kept as the organization's fence: an event not newer than V is
 * already in the snapshot and changes nothing when it arrives late. This repairs a copy that
 * diverged however it did (events lost, rows changed by hand). The same rule as content's
 * reconciliation (services/content/src/access/use-cases/reconcile-team-memberships.ts).
 */
export async function reconcileTeamMemberships(em: EntityManager, input: { organizationId: string }, deps: ReconcileDeps): Promise<ReconciliationResult> {
  const { organizationId } = input;
  if (!isId(organizationId)) return { organizations: 0, added: 0, removed: 0 };
  const snapshot = await deps.identity.teams.listTeamMemberships({ organizationId });
  const version = snapshot.membershipVersion;
  return deps.unitOfWork.run(em, async (tx) => {
    // The consumer takes the same lock: no event of the organization is applied halfway through.
    await lockTeamMemberships(tx, organizationId);
    const [fence] = await queryRows(
      tx,
      sql<{ version: number }>`select version from team_membership_reconciliations where organization_id = ${organizationId}`,
    );
    // A newer reconciliation already ran: this snapshot is older than the copy's fence.
    if (fence && fence.version > version) return { organizations: 1, added: 0, removed: 0 };
    const rows = await queryRows(
      tx,
      sql<{
        team_id: string;
        user_id: string;
        version: number;
        present: boolean;
      }>`select team_id, user_id, version, present from team_memberships where organization_id = ${organizationId}`,
    );
    const held = new Map(rows.map((row) => [`${row.team_id}/${row.user_id}`, row]));
    const deletedTeams = new Set(
      (await queryRows(tx, sql<{ team_id: string }>`select team_id from deleted_teams where organization_id = ${organizationId}`)).map((row) => row.team_id),
    );
    const removedLater = new Set(
      (
        await queryRows(tx, sql<{ user_id: string }>`select user_id from removed_members where organization_id = ${organizationId} and version > ${version}`)
      ).map((row) => row.user_id),
    );
    const inIdentity = new Set<string>();
    const toHold: { teamId: string; userId: string }[] = [];
    let added = 0;
    for (const { teamId, userId } of snapshot.memberships) {
      const key = `${teamId}/${userId}`;
      inIdentity.add(key);
      const row = held.get(key);
      if ((row && row.version > version) || deletedTeams.has(teamId) || removedLater.has(userId)) continue;
      if (!row?.present) added += 1;
      toHold.push({ teamId, userId });
    }
    const toDrop = rows.filter((row) => row.present && row.version <= version && !inIdentity.has(`${row.team_id}/${row.user_id}`));
    if (toHold.length > 0) {
      await executeStatement(
        tx,
        sql`insert into team_memberships (team_id, user_id, organization_id, version, present)
         select s.team_id, s.user_id, ${organizationId}::uuid, ${version}::int, true from unnest(${pgArray(toHold.map((row) => row.teamId))}::uuid[], ${pgArray(toHold.map((row) => row.userId))}::uuid[]) as s(team_id, user_id)
         on conflict (team_id, user_id) do update set present = true, version = excluded.version where team_memberships.version <= excluded.version`,
      );
    }
    if (toDrop.length > 0) {
      await executeStatement(
        tx,
        sql`update team_memberships m set present = false, version = ${version}
           from unnest(${pgArray(toDrop.map((row) => row.team_id))}::uuid[], ${pgArray(toDrop.map((row) => row.user_id))}::uuid[]) as s(team_id, user_id)
          where m.team_id = s.team_id and m.user_id = s.user_id and m.version <= ${version}`,
      );
    }
    await executeStatement(
      tx,
      sql`insert into team_membership_reconciliations (organization_id, version, reconciled_at) values (${organizationId}, ${version}, ${deps.clock()})
       on conflict (organization_id) do update set version = excluded.version, reconciled_at = excluded.reconciled_at`,
    );
    if (added > 0 || toDrop.length > 0)
      deps.logger.warn("team memberships reconciled with identity", { organizationId, version, added, removed: toDrop.length });
    return { organizations: 1, added, removed: toDrop.length };
  });
}

/** Every organization whose sites have team grants, or whose memberships publishing holds: the ones a reconciliation of all covers. */
export async function knownOrganizations(em: EntityManager): Promise<string[]> {
  const rows = await queryRows(
    em,
    sql<{ organization_id: string }>`select organization_id from site_team_grants union select organization_id from team_memberships order by 1`,
  );
  return rows.map((row) => row.organization_id);
}

/** Reconciles one organization, or every one publishing knows (`organizationId` empty); stops between organizations when `signal` aborts. */
export async function reconcileAllTeamMemberships(
  em: EntityManager,
  input: { organizationId: string; signal?: AbortSignal },
  deps: ReconcileDeps,
): Promise<ReconciliationResult> {
  const organizations = input.organizationId ? [input.organizationId] : await knownOrganizations(em);
  const total: ReconciliationResult = { organizations: 0, added: 0, removed: 0 };
  for (const organizationId of organizations) {
    if (input.signal?.aborted) break;
    const result = await reconcileTeamMemberships(em.fork(), { organizationId }, deps);
    total.organizations += result.organizations;
    total.added += result.added;
    total.removed += result.removed;
  }
  return total;
}

/** A PostgreSQL array literal of ids (checked ids: no quoting needed). */
function pgArray(ids: readonly string[]): string {
  return `{${ids.join(",")}}`;
}
