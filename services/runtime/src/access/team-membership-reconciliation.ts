import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { isId } from "../caller.js";
import { forkEm } from "../db/orm.js";
import { executeStatement, queryRows, sql } from "../db/sql.js";
import type { UnitOfWork } from "../db/unit-of-work.js";
import type { JobSpec } from "../jobs/job-runner.js";
import type { Logger } from "../logger.js";
import type { Clock } from "../service.js";
import type { IdentityClients } from "./identity-clients.js";
import { lockTeamMemberships } from "./team-membership-copy.js";

/** What the reconciliation of a service's team-membership copy with identity needs. */
export interface TeamMembershipReconcileDeps {
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

/** Every organization the service knows: the ones a reconciliation of all covers. */
export type KnownOrganizations = (em: EntityManager) => Promise<string[]>;

/**
 * Makes the service's copy of an organization's team memberships equal to identity's
 * (ListTeamMemberships, one snapshot at identity's `membershipVersion` V): rows the copy lacks are
 * added, rows identity does not have become tombstones, both at version V; rows of newer changes
 * (version above V, applied meanwhile) stay. V is kept as the organization's fence: an event not
 * newer than V is already in the snapshot and changes nothing when it arrives late. This repairs a
 * copy that diverged however it did (events lost, rows changed by hand).
 */
export async function reconcileOrganizationTeamMemberships(
  em: EntityManager,
  input: { organizationId: string },
  deps: TeamMembershipReconcileDeps,
): Promise<ReconciliationResult> {
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

/** Reconciles one organization, or every one the service knows (`organizationId` empty); stops between organizations when `signal` aborts. */
export async function reconcileTeamMembershipCopy(
  em: EntityManager,
  input: { organizationId: string; signal?: AbortSignal },
  deps: TeamMembershipReconcileDeps,
  knownOrganizations: KnownOrganizations,
): Promise<ReconciliationResult> {
  const organizations = input.organizationId ? [input.organizationId] : await knownOrganizations(em);
  const total: ReconciliationResult = { organizations: 0, added: 0, removed: 0 };
  for (const organizationId of organizations) {
    if (input.signal?.aborted) break;
    const result = await reconcileOrganizationTeamMemberships(em.fork(), { organizationId }, deps);
    total.organizations += result.organizations;
    total.added += result.added;
    total.removed += result.removed;
  }
  return total;
}

export interface TeamMembershipCopyReconcileJobOptions {
  /** The job's name (its lease). */
  name: string;
  intervalMs: number;
  orm: MikroORM;
  deps: TeamMembershipReconcileDeps;
  knownOrganizations: KnownOrganizations;
}

/**
 * Makes the service's copy of team memberships equal to identity's for every organization it
 * knows, every `intervalMs`, on one replica at a time: the events keep it current, this repairs
 * what they could not (an event lost, a row changed by hand).
 */
export function teamMembershipCopyReconcileJob(options: TeamMembershipCopyReconcileJobOptions): JobSpec {
  const { deps } = options;
  return {
    name: options.name,
    intervalMs: options.intervalMs,
    run: async (signal) => {
      const result = await reconcileTeamMembershipCopy(forkEm(options.orm), { organizationId: "", signal }, deps, options.knownOrganizations);
      deps.logger.info("team memberships reconciled", { ...result });
    },
  };
}

/** A PostgreSQL array literal of ids (checked ids: no quoting needed). */
function pgArray(ids: readonly string[]): string {
  return `{${ids.join(",")}}`;
}
