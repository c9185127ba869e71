import type { EntityManager } from "@mikro-orm/postgresql";
import { type CallerInput, recordEvent } from "@imprint/runtime";
import { collectionPermissionChanged, spacePermissionChanged } from "../events.js";
import type { Level } from "./domain/levels.js";
import { TeamGrant, type GrantTarget } from "./domain/team-grants.js";
import { UserGrant } from "./domain/user-grants.js";

/** Who a grant is to: a team of the organization, or one of its members. */
export type Grantee = { kind: "team"; teamId: string } | { kind: "user"; userId: string };

/** One grant to give, change or take away (`level` null) on an item of `organizationId`. */
export interface GrantChange {
  organizationId: string;
  target: GrantTarget;
  targetId: string;
  grantee: Grantee;
  level: Level | null;
  /** A new user grant's `version` (the membership version of the join that made it; 0 by default). */
  version?: number;
}

/**
 * Gives, changes or takes away a team's or a user's grant, and records `space.permission_changed`
 * or `collection.permission_changed` when it changed anything (in the caller's transaction, so the
 * audit log hears of every grant change through the outbox). Answers whether it changed.
 */
export async function changeGrant(tx: EntityManager, change: GrantChange, context: { clock: () => Date; actor: CallerInput | null }): Promise<boolean> {
  const { organizationId, target, targetId, grantee, level } = change;
  const existing =
    grantee.kind === "team"
      ? await tx.findOne(TeamGrant, { targetType: target, targetId, teamId: grantee.teamId })
      : await tx.findOne(UserGrant, { targetType: target, targetId, userId: grantee.userId });
  // A grant left from before the item moved to another organization counts for nobody (the checks read the item's
  // organization's grants only): it is no grant, and a new one takes its row.
  const stale = existing !== null && existing.organizationId !== organizationId;
  const from = stale ? null : (existing?.level ?? null);
  if (from === level) return false;
  if (level === null) tx.remove(existing!);
  else if (existing) {
    existing.level = level;
    existing.organizationId = organizationId;
  } else if (grantee.kind === "team")
    tx.create(TeamGrant, { organizationId, teamId: grantee.teamId, targetType: target, targetId, level, createdAt: context.clock() });
  else
    tx.create(UserGrant, {
      organizationId,
      userId: grantee.userId,
      targetType: target,
      targetId,
      level,
      version: change.version ?? 0,
      createdAt: context.clock(),
    });
  const who = { userId: grantee.kind === "user" ? grantee.userId : "", teamId: grantee.kind === "team" ? grantee.teamId : "", fromLevel: from, level };
  if (target === "space") recordEvent(tx, spacePermissionChanged, { organizationId, actor: context.actor, payload: { spaceId: targetId, ...who } });
  else recordEvent(tx, collectionPermissionChanged, { organizationId, actor: context.actor, payload: { collectionId: targetId, ...who } });
  return true;
}
