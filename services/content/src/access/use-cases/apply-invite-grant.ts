import type { EntityManager } from "@mikro-orm/postgresql";
import { type CallerInput, isId, lockTeamMemberships, queryRows, sql } from "@imprint/runtime";
import { isLevel } from "../domain/levels.js";
import { better, type GrantTarget } from "../domain/team-grants.js";
import { UserGrant } from "../domain/user-grants.js";
import { changeGrant } from "../grants.js";

/** A member who joined through an invite link to a space or a collection, with the level the link grants there. */
export interface InviteGrant {
  organizationId: string;
  userId: string;
  target: GrantTarget;
  targetId: string;
  level: string;
  /** identity's `membershipVersion` of the join (0: none). */
  version: number;
  /** Who joined (the event's actor). */
  actor: CallerInput | null;
}

/**
 * Makes the grant an invite link promised its guest (`member.added` of a join through a link to a
 * space or collection), whatever order identity's events come in: under the organization's
 * membership lock (which the member's removal takes too), nothing is granted when the user's
 * removal from the organization is not older than the join (a late `member.added` after
 * `member.removed` gives no access back), nor on an item no longer of the organization (deleted,
 * transferred). The grant keeps the join's version, so only a later removal takes it away, and a
 * join not newer than the grant already there changes nothing (a repeated event). Over a grant of an
 * older join the newer link's level applies; over one made through the API it adds, never takes away.
 */
export async function applyInviteGrant(em: EntityManager, grant: InviteGrant, clock: () => Date): Promise<void> {
  const { organizationId, userId, target, targetId } = grant;
  if (!isId(userId) || !isId(targetId) || !isLevel(grant.level)) return;
  const version = Number.isSafeInteger(grant.version) && grant.version > 0 ? grant.version : 0;
  await lockTeamMemberships(em, organizationId);
  const [removed] = await queryRows(
    em,
    sql<{ version: number }>`select version from removed_members where organization_id = ${organizationId} and user_id = ${userId}`,
  );
  if (removed && removed.version >= version) return;
  const [item] = await queryRows(
    em,
    target === "space"
      ? sql<{ id: string }>`select id from spaces where id = ${targetId} and organization_id = ${organizationId} and deleted_at is null`
      : sql<{ id: string }>`select id from collections where id = ${targetId} and organization_id = ${organizationId}`,
  );
  if (!item) return;
  const existing = await em.findOne(UserGrant, { targetType: target, targetId, userId });
  if (existing && existing.version >= version) return;
  const level = existing && existing.version === 0 ? better(existing.level, grant.level)! : grant.level;
  await changeGrant(em, { organizationId, target, targetId, grantee: { kind: "user", userId }, level, version }, { clock, actor: grant.actor });
  if (existing) existing.version = version;
}
