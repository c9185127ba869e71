import type { EntityManager } from "@mikro-orm/postgresql";
import { type CallerInput, queryRows, requireOrganizationRole, sql } from "@imprint/runtime";
import type { DefaultLevel, Level } from "./domain/levels.js";
import { levelOn, levelThroughChain } from "./domain/permissions.js";
import { better, NO_GRANTED_LEVELS, type GrantTarget, type GrantedLevels } from "./domain/team-grants.js";
import { membershipOf, type Membership } from "./memberships.js";
import type { AccessDeps } from "../deps.js";

/** What a level is computed on: a space or a collection (spaces' entities), by its own default level and its parent collection. */
export interface LeveledItem {
  id: string;
  defaultLevel?: DefaultLevel | null;
  parentId?: string | null;
}

/**
 * The caller's enabled membership of the organization. Non-members (and disabled members) get
 * "Organization not found", so organizations of others look like organizations that do not exist.
 */
export async function requireOrganizationMembership(deps: AccessDeps, organizationId: string, caller: CallerInput | undefined): Promise<Membership> {
  const allowed = await requireOrganizationRole({ memberships: deps.memberships.roles }, caller, organizationId, "guest");
  return membershipOf(organizationId, allowed.caller.userId, allowed.role);
}

/** `collectionId` and its ancestors, nearest first (empty for the top level). */
async function collectionAncestry(em: EntityManager, collectionId: string | null): Promise<{ id: string; default_level: DefaultLevel }[]> {
  if (!collectionId) return [];
  return queryRows(
    em,
    sql<{ id: string; default_level: DefaultLevel }>`with recursive chain as (
       select id, parent_id, default_level, 1 as depth from collections where id = ${collectionId}
       union all
       select c.id, c.parent_id, c.default_level, chain.depth + 1 from collections c join chain on c.id = chain.parent_id where chain.depth < 100
     ) select id, default_level from chain order by depth`,
  );
}

/** Default levels of `collectionId` and its ancestors, nearest first (empty for the top level). */
export async function collectionChain(em: EntityManager, collectionId: string | null): Promise<DefaultLevel[]> {
  return (await collectionAncestry(em, collectionId)).map((row) => row.default_level);
}

/**
 * The levels the member was granted in the organization, directly and through their teams, best
 * per item (one query): the one place grants are folded into a member's levels.
 */
export async function grantedLevelsOf(em: EntityManager, membership: Membership): Promise<GrantedLevels> {
  const rows = await queryRows(
    em,
    sql<{ target_type: GrantTarget; target_id: string; level: Level }>`select g.target_type, g.target_id, g.level from team_grants g
       join team_memberships m on m.team_id = g.team_id and m.present
      where m.user_id = ${membership.userId} and m.organization_id = ${membership.organizationId} and g.organization_id = ${membership.organizationId}
     union all
     select u.target_type, u.target_id, u.level from user_grants u where u.user_id = ${membership.userId} and u.organization_id = ${membership.organizationId}`,
  );
  if (rows.length === 0) return NO_GRANTED_LEVELS;
  const spaces = new Map<string, Level>();
  const collections = new Map<string, Level>();
  for (const row of rows) {
    const into = row.target_type === "space" ? spaces : collections;
    into.set(row.target_id, better(into.get(row.target_id) ?? null, row.level)!);
  }
  return { spaces, collections };
}

/** The best level the grants give on an item whose own grant is `own`, inside `ancestry` (collections, nearest first). */
function grantedLevel(grants: GrantedLevels, own: Level | null, ancestry: readonly { id: string }[]): Level | null {
  let level = own;
  for (const collection of ancestry) level = better(level, grants.collections.get(collection.id) ?? null);
  return level;
}

/**
 * The member's level on a space: by their role and the default levels (walking up its collections
 * only when it inherits), bettered by what they or their teams were granted on it or on a
 * collection holding it.
 */
export async function spaceLevel(em: EntityManager, membership: Membership, space: LeveledItem): Promise<Level | null> {
  if (membership.role === "admin") return "admin";
  const grants = await grantedLevelsOf(em, membership);
  const withGrants = grants.spaces.size > 0 || grants.collections.size > 0;
  const inherits = membership.role !== null && space.defaultLevel === "inherit" && space.parentId;
  const ancestry = inherits || (withGrants && grants.collections.size > 0) ? await collectionAncestry(em, space.parentId ?? null) : [];
  const own = inherits
    ? levelThroughChain(membership, [space.defaultLevel ?? null, ...ancestry.map((row) => row.default_level)])
    : levelOn(membership, space.defaultLevel ?? null, null);
  return withGrants ? better(own, grantedLevel(grants, grants.spaces.get(space.id) ?? null, ancestry)) : own;
}

/** The member's level on a collection, as {@link spaceLevel} (a grant on the collection or one holding it counts). */
export async function collectionLevel(em: EntityManager, membership: Membership, collection: LeveledItem): Promise<Level | null> {
  if (membership.role === "admin") return "admin";
  const grants = await grantedLevelsOf(em, membership);
  const inherits = membership.role !== null && collection.defaultLevel === "inherit" && collection.parentId;
  const ancestry = inherits || grants.collections.size > 0 ? await collectionAncestry(em, collection.parentId ?? null) : [];
  const own = inherits
    ? levelThroughChain(membership, [collection.defaultLevel ?? null, ...ancestry.map((row) => row.default_level)])
    : levelOn(membership, collection.defaultLevel ?? null, null);
  return grants.collections.size > 0 ? better(own, grantedLevel(grants, grants.collections.get(collection.id) ?? null, ancestry)) : own;
}
