import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, findOwnedOrNull, isId, queryRows, requireCaller, sql } from "@imprint/runtime";
import { Collection } from "../spaces/domain/collection.js";
import { Space } from "../spaces/domain/space.js";
import { atLeast, type DefaultLevel, type Level } from "./domain/levels.js";
import type { AccessDeps } from "../deps.js";
import type { Membership } from "./memberships.js";
import { better, NO_TEAM_LEVELS, type GrantTarget, type TeamLevels } from "./domain/team-grants.js";
import {
  collectionPermissions,
  levelOn,
  levelThroughChain,
  spacePermissions,
  type CollectionPermissions,
  type SpacePermissions,
} from "./domain/permissions.js";

export * from "./domain/levels.js";
export * from "./memberships.js";
export * from "./domain/permissions.js";
export * from "./domain/team-grants.js";
export { teamMembershipsConsumer } from "./consumers/team-memberships.js";
export type { AccessDeps };
/** The caller checks every context shares, from the runtime. */
export { isId, requireCaller, type CallerInput };


/**
 * The caller's enabled membership of the organization. Non-members (and disabled members) get
 * "Organization not found", so organizations of others look like organizations that do not exist.
 */
export async function requireOrganizationMembership(deps: AccessDeps, organizationId: string, caller: CallerInput | undefined): Promise<Membership> {
  const { userId, tokenId } = requireCaller(caller);
  if (!isId(organizationId)) throw AppError.notFound("Organization");
  const membership = await deps.memberships.get(organizationId, userId, tokenId);
  if (!membership) throw AppError.notFound("Organization");
  return membership;
}

/** `collectionId` and its ancestors, nearest first (empty for the top level). */
async function collectionAncestry(em: EntityManager, collectionId: string | null): Promise<{ id: string; default_level: DefaultLevel }[]> {
  if (!collectionId) return [];
  return queryRows(em, sql<{ id: string; default_level: DefaultLevel }>`with recursive chain as (
       select id, parent_id, default_level, 1 as depth from collections where id = ${collectionId}
       union all
       select c.id, c.parent_id, c.default_level, chain.depth + 1 from collections c join chain on c.id = chain.parent_id where chain.depth < 100
     ) select id, default_level from chain order by depth`);
}

/** Default levels of `collectionId` and its ancestors, nearest first (empty for the top level). */
export async function collectionChain(em: EntityManager, collectionId: string | null): Promise<DefaultLevel[]> {
  return (await collectionAncestry(em, collectionId)).map((row) => row.default_level);
}

/** The levels the member's teams were granted in the organization, best per item (one query). */
export async function teamLevelsOf(em: EntityManager, membership: Membership): Promise<TeamLevels> {
  const rows = await queryRows(em, sql<{ target_type: GrantTarget; target_id: string; level: Level }>`select g.target_type, g.target_id, g.level from team_grants g
       join team_memberships m on m.team_id = g.team_id and m.present
      where m.user_id = ${membership.userId} and m.organization_id = ${membership.organizationId} and g.organization_id = ${membership.organizationId}`);
  if (rows.length === 0) return NO_TEAM_LEVELS;
  const spaces = new Map<string, Level>();
  const collections = new Map<string, Level>();
  for (const row of rows) {
    const into = row.target_type === "space" ? spaces : collections;
    into.set(row.target_id, better(into.get(row.target_id) ?? null, row.level)!);
  }
  return { spaces, collections };
}

/** The best level the teams' grants give on an item whose own grant is `own`, inside `ancestry` (collections, nearest first). */
function grantedLevel(teams: TeamLevels, own: Level | null, ancestry: readonly { id: string }[]): Level | null {
  let level = own;
  for (const collection of ancestry) level = better(level, teams.collections.get(collection.id) ?? null);
  return level;
}

export interface SpaceAccess {
  space: Space;
  membership: Membership;
  level: Level | null;
  permissions: SpacePermissions;
}

export interface CollectionAccess {
  collection: Collection;
  membership: Membership;
  level: Level | null;
  permissions: CollectionPermissions;
}

/**
 * The space if the caller may `need` on it. A caller who cannot even view it (another
 * organization's, deleted, missing) gets "Space not found"; one who can view it but not do `need`
 * gets permission_denied. `includeDeleted` is for restore; `lock` takes the row for update.
 */
export async function requireSpaceAccess(
  em: EntityManager,
  deps: AccessDeps,
  input: { caller: CallerInput | undefined; spaceId: string; need: keyof SpacePermissions; includeDeleted?: boolean; lock?: boolean },
): Promise<SpaceAccess> {
  const { userId, tokenId } = requireCaller(input.caller);
  const space = await findOwnedOrNull(em, Space, {}, input.spaceId, { lock: input.lock });
  if (!space || (space.deletedAt && !input.includeDeleted)) throw AppError.notFound("Space");
  const membership = await deps.memberships.get(space.organizationId, userId, tokenId);
  if (!membership) throw AppError.notFound("Space");
  const level = await spaceLevel(em, membership, space);
  const permissions = spacePermissions(level, space);
  if (!permissions.view) throw AppError.notFound("Space");
  if (!permissions[input.need]) throw AppError.permissionDenied(`You need the "${input.need}" permission on this space`);
  return { space, membership, level, permissions };
}

/** Same as {@link requireSpaceAccess} for collections. */
export async function requireCollectionAccess(
  em: EntityManager,
  deps: AccessDeps,
  input: { caller: CallerInput | undefined; collectionId: string; need: keyof CollectionPermissions; lock?: boolean },
): Promise<CollectionAccess> {
  const { userId, tokenId } = requireCaller(input.caller);
  const collection = await findOwnedOrNull(em, Collection, {}, input.collectionId, { lock: input.lock });
  if (!collection) throw AppError.notFound("Collection");
  const membership = await deps.memberships.get(collection.organizationId, userId, tokenId);
  if (!membership) throw AppError.notFound("Collection");
  const level = await collectionLevel(em, membership, collection);
  const permissions = collectionPermissions(level);
  if (!permissions.view) throw AppError.notFound("Collection");
  if (!permissions[input.need]) throw AppError.permissionDenied(`You need the "${input.need}" permission on this collection`);
  return { collection, membership, level, permissions };
}

/**
 * The member's level on a space: by their role and the default levels (walking up its collections
 * only when it inherits), bettered by what their teams were granted on it or on a collection
 * holding it.
 */
export async function spaceLevel(em: EntityManager, membership: Membership, space: Pick<Space, "id" | "defaultLevel" | "parentId">): Promise<Level | null> {
  if (membership.role === "admin") return "admin";
  const teams = await teamLevelsOf(em, membership);
  const withTeams = teams.spaces.size > 0 || teams.collections.size > 0;
  const inherits = membership.role !== null && space.defaultLevel === "inherit" && space.parentId;
  const ancestry = inherits || (withTeams && teams.collections.size > 0) ? await collectionAncestry(em, space.parentId ?? null) : [];
  const own = inherits ? levelThroughChain(membership, [space.defaultLevel ?? null, ...ancestry.map((row) => row.default_level)]) : levelOn(membership, space.defaultLevel ?? null, null);
  return withTeams ? better(own, grantedLevel(teams, teams.spaces.get(space.id) ?? null, ancestry)) : own;
}

/** The member's level on a collection, as {@link spaceLevel} (a grant on the collection or one holding it counts). */
export async function collectionLevel(em: EntityManager, membership: Membership, collection: Pick<Collection, "id" | "defaultLevel" | "parentId">): Promise<Level | null> {
  if (membership.role === "admin") return "admin";
  const teams = await teamLevelsOf(em, membership);
  const inherits = membership.role !== null && collection.defaultLevel === "inherit" && collection.parentId;
  const ancestry = inherits || teams.collections.size > 0 ? await collectionAncestry(em, collection.parentId ?? null) : [];
  const own = inherits ? levelThroughChain(membership, [collection.defaultLevel ?? null, ...ancestry.map((row) => row.default_level)]) : levelOn(membership, collection.defaultLevel ?? null, null);
  return teams.collections.size > 0 ? better(own, grantedLevel(teams, teams.collections.get(collection.id) ?? null, ancestry)) : own;
}

/**
 * The caller's level on every collection of an organization, computed once for a list request:
 * lists filter and annotate many items without a query per item. Organizations hold few
 * collections next to their spaces, so they are read whole.
 */
export class OrganizationAccess {
  private constructor(
    readonly organizationId: string,
    readonly membership: Membership,
    private readonly collectionLevels: ReadonlyMap<string, Level | null>,
    private readonly teams: TeamLevels,
    /** The best level team grants give inside each collection (its own grant or one of an ancestor's). */
    private readonly grantsInside: ReadonlyMap<string, Level>,
  ) {}

  static async load(em: EntityManager, organizationId: string, membership: Membership): Promise<OrganizationAccess> {
    const [rows, teams] = await Promise.all([
      em.find(Collection, { organizationId }, { fields: ["id", "parentId", "defaultLevel"] }),
      membership.role === "admin" ? Promise.resolve(NO_TEAM_LEVELS) : teamLevelsOf(em, membership),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const levels = new Map<string, Level | null>();
    const grantsInside = new Map<string, Level>();
    const resolve = (id: string, depth: number): { level: Level | null; granted: Level | null } => {
      if (levels.has(id)) return { level: levels.get(id)!, granted: grantsInside.get(id) ?? null };
      const row = byId.get(id);
      if (!row) return { level: null, granted: null };
      // A parent id that does not resolve (or a cycle, which moves prevent) counts as the top level.
      const parent = row.parentId && byId.has(row.parentId) && depth < 100 ? resolve(row.parentId, depth + 1) : null;
      const granted = better(teams.collections.get(id) ?? null, parent?.granted ?? null);
      const level = better(levelOn(membership, row.defaultLevel ?? null, parent ? { level: parent.level } : null), granted);
      levels.set(id, level);
      if (granted) grantsInside.set(id, granted);
      return { level, granted };
    };
    for (const row of rows) resolve(row.id, 0);
    return new OrganizationAccess(organizationId, membership, levels, teams, grantsInside);
  }

  collectionLevel(collectionId: string): Level | null {
    return this.collectionLevels.get(collectionId) ?? null;
  }

  spaceLevel(space: Pick<Space, "id" | "defaultLevel" | "parentId">): Level | null {
    const parent = space.parentId ? { level: this.collectionLevel(space.parentId) } : null;
    const own = levelOn(this.membership, space.defaultLevel ?? null, parent);
    return better(own, better(this.teams.spaces.get(space.id) ?? null, space.parentId ? (this.grantsInside.get(space.parentId) ?? null) : null));
  }

  /** Ids of the collections the caller can view. */
  visibleCollectionIds(): string[] {
    return [...this.collectionLevels].filter(([, level]) => atLeast(level, "read")).map(([id]) => id);
  }

  /** Whether the caller sees everything (organization admins). */
  get seesAll(): boolean {
    return this.membership.role === "admin";
  }

  /** Guests see nothing; other members a subset; admins everything. */
  get seesNothing(): boolean {
    return this.membership.role === null;
  }

  /**
   * A MikroORM filter on spaces (or collections) matching what the caller can view: for members,
   * an item is visible unless its resolved default level is null (see levelOn: any level capped
   * by a member's role still grants at least read).
   */
  visibleFilter(): Record<string, unknown> {
    if (this.seesAll) return {};
    // What teams were granted: the items themselves, and whatever a granted collection holds.
    const granted = [...this.teams.spaces.keys(), ...this.teams.collections.keys()];
    const grantedParents = [...this.grantsInside.keys()];
    const byGrants = [...(granted.length > 0 ? [{ id: { $in: granted } }] : []), ...(grantedParents.length > 0 ? [{ parentId: { $in: grantedParents } }] : [])];
    if (this.seesNothing) return byGrants.length > 0 ? { $or: byGrants } : { id: { $in: [] } };
    const visibleParents = this.visibleCollectionIds();
    return {
      $or: [
        { defaultLevel: { $in: ["admin", "create", "review", "edit", "comment", "read"] } },
        { defaultLevel: "inherit", parentId: null },
        ...(visibleParents.length > 0 ? [{ defaultLevel: "inherit", parentId: { $in: visibleParents } }] : []),
        ...byGrants,
      ],
    };
  }
}
