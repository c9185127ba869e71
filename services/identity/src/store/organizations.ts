import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned, queryRows, sql } from "@imprint/runtime";
import { Organization } from "../domain/organization.js";

/**
 * Locks the organization row for the rest of the transaction. Every change that may drop the
 * number of admins takes this lock first, so two concurrent demotions cannot both see "another
 * admin remains" and leave the organization without one.
 */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await findOwned(em, Organization, {}, organizationId, { lock: true });
}

const versionsOf = new WeakMap<EntityManager, Map<string, number>>();

/**
 * The organization's next team-membership version, for the events of a transaction that changes
 * its team memberships (added, removed, team deleted, member removed). The first call in a
 * transaction increments it, which takes the organization's row lock until commit: a concurrent
 * change waits, so versions follow commit order. Call it before reading the memberships the
 * change depends on (what is read after the lock includes every earlier commit). Later calls in
 * the same transaction answer the same version: each (team, user) changes at most once in one.
 */
export async function nextMembershipVersion(tx: EntityManager, organizationId: string): Promise<number> {
  let versions = versionsOf.get(tx);
  if (!versions) versionsOf.set(tx, (versions = new Map<string, number>()));
  const known = versions.get(organizationId);
  if (known !== undefined) return known;
  const [row] = await queryRows(
    tx,
    sql<{
      membership_version: number;
    }>`update organizations set membership_version = membership_version + 1 where id = ${organizationId} returning membership_version`,
  );
  if (!row) throw AppError.notFound("Organization");
  const version = Number(row.membership_version);
  versions.set(organizationId, version);
  return version;
}
