import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, requireCaller, type CallerInput } from "@imprint/runtime";
import { Collection } from "../spaces/domain/collection.js";
import { Space } from "../spaces/domain/space.js";
import { atLeast, type DefaultLevel, type Level } from "./domain/levels.js";
import type { AccessDeps } from "../deps.js";
import type { Membership } from "./memberships.js";
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
export type { AccessDeps };
/** The caller checks every context shares, from the runtime. */
export { isId, requireCaller, type CallerInput };


/**
 * The caller's enabled membership of the organization. Non-members (and disabled members) get
 * "Organization not found", so organizations of others look like organizations that do not exist.
 */
export async function requireOrganizationMembership(deps: AccessDeps, organizationId: string, caller: CallerInput | undefined): Promise<Membership> {
  const { userId } = requireCaller(caller);
  if (!isId(organizationId)) throw AppError.notFound("Organization");
  const membership = await deps.memberships.get(organizationId, userId);
  if (!membership) throw AppError.notFound("Organization");
  return membership;
}

/** Default levels of `collectionId` and its ancestors, nearest first (empty for the top level). */
export async function collectionChain(em: EntityManager, collectionId: string | null): Promise<DefaultLevel[]> {
  if (!collectionId) return [];
  const rows = await em.execute<{ default_level: DefaultLevel }[]>(
    `with recursive chain as (
       select id, parent_id, default_level, 1 as depth from collections where id = ?
       union all
       select c.id, c.parent_id, c.default_level, chain.depth + 1 from collections c join chain on c.id = chain.parent_id where chain.depth < 100
     ) select default_level from chain order by depth`,
    [collectionId],
  );
  return rows.map((row) => row.default_level);
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
  const { userId } = requireCaller(input.caller);
  if (!isId(input.spaceId)) throw AppError.notFound("Space");
  const space = await em.findOne(Space, { id: input.spaceId }, input.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!space || (space.deletedAt && !input.includeDeleted)) throw AppError.notFound("Space");
  const membership = await deps.memberships.get(space.organizationId, userId);
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
  const { userId } = requireCaller(input.caller);
  if (!isId(input.collectionId)) throw AppError.notFound("Collection");
  const collection = await em.findOne(Collection, { id: input.collectionId }, input.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!collection) throw AppError.notFound("Collection");
  const membership = await deps.memberships.get(collection.organizationId, userId);
  if (!membership) throw AppError.notFound("Collection");
  const level = await collectionLevel(em, membership, collection);
  const permissions = collectionPermissions(level);
  if (!permissions.view) throw AppError.notFound("Collection");
  if (!permissions[input.need]) throw AppError.permissionDenied(`You need the "${input.need}" permission on this collection`);
  return { collection, membership, level, permissions };
}

/** The member's level on a space (walks up its collections only when it inherits). */
export async function spaceLevel(em: EntityManager, membership: Membership, space: Pick<Space, "defaultLevel" | "parentId">): Promise<Level | null> {
  if (membership.role === "admin" || membership.role === null) return levelOn(membership, space.defaultLevel ?? null, null);
  if (space.defaultLevel !== "inherit" || !space.parentId) return levelOn(membership, space.defaultLevel ?? null, null);
  return levelThroughChain(membership, [space.defaultLevel ?? null, ...(await collectionChain(em, space.parentId))]);
}

export async function collectionLevel(em: EntityManager, membership: Membership, collection: Pick<Collection, "defaultLevel" | "parentId">): Promise<Level | null> {
  if (membership.role === "admin" || membership.role === null) return levelOn(membership, collection.defaultLevel ?? null, null);
  if (collection.defaultLevel !== "inherit" || !collection.parentId) return levelOn(membership, collection.defaultLevel ?? null, null);
  return levelThroughChain(membership, [collection.defaultLevel ?? null, ...(await collectionChain(em, collection.parentId))]);
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
  ) {}

  static async load(em: EntityManager, organizationId: string, membership: Membership): Promise<OrganizationAccess> {
    const rows = await em.find(Collection, { organizationId }, { fields: ["id", "parentId", "defaultLevel"] });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const levels = new Map<string, Level | null>();
    const resolve = (id: string, depth: number): Level | null => {
      if (levels.has(id)) return levels.get(id)!;
      const row = byId.get(id);
      if (!row) return null;
      // A parent id that does not resolve (or a cycle, which moves prevent) counts as the top level.
      const parent = row.parentId && byId.has(row.parentId) && depth < 100 ? { level: resolve(row.parentId, depth + 1) } : null;
      const level = levelOn(membership, row.defaultLevel ?? null, parent);
      levels.set(id, level);
      return level;
    };
    for (const row of rows) resolve(row.id, 0);
    return new OrganizationAccess(organizationId, membership, levels);
  }

  collectionLevel(collectionId: string): Level | null {
    return this.collectionLevels.get(collectionId) ?? null;
  }

  spaceLevel(space: Pick<Space, "defaultLevel" | "parentId">): Level | null {
    const parent = space.parentId ? { level: this.collectionLevel(space.parentId) } : null;
    return levelOn(this.membership, space.defaultLevel ?? null, parent);
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
    if (this.seesNothing) return { id: { $in: [] } };
    const visibleParents = this.visibleCollectionIds();
    return {
      $or: [
        { defaultLevel: { $in: ["admin", "create", "review", "edit", "comment", "read"] } },
        { defaultLevel: "inherit", parentId: null },
        ...(visibleParents.length > 0 ? [{ defaultLevel: "inherit", parentId: { $in: visibleParents } }] : []),
      ],
    };
  }
}
