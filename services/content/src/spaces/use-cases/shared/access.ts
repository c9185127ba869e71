import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, findOwnedOrNull, requireCaller } from "@imprint/runtime";
import {
  atLeast,
  better,
  collectionLevel,
  collectionPermissions,
  levelOn,
  NO_GRANTED_LEVELS,
  spaceLevel,
  spacePermissions,
  grantedLevelsOf,
  type AccessDeps,
  type CollectionPermissions,
  type Level,
  type Membership,
  type SpacePermissions,
  type GrantedLevels,
} from "../../../access/index.js";
import { Collection } from "../../domain/collection.js";
import { Space } from "../../domain/space.js";
import { findSpaceSummary, type SpaceSummary } from "../../store/space-summary.js";

/*
 * The checks on a space or a collection: they load the row (spaces' entities), then ask access for
 * the caller's level on it.
 */

/** A space the caller may act on: the entity for changes, a {@link SpaceSummary} for reads. */
export interface SpaceAccess<S extends SpaceSummary = Space> {
  space: S;
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
  const caller = requireCaller(input.caller);
  const space = await findOwnedOrNull(em, Space, {}, input.spaceId, { lock: input.lock });
  return grantSpace(em, deps, caller, space, input);
}

/**
 * {@link requireSpaceAccess} for reads of a space's content: the same checks and answers, on the
 * space's summary read without the ORM (every content read starts here; nothing is written back).
 */
export async function requireSpaceReadAccess(
  em: EntityManager,
  deps: AccessDeps,
  input: { caller: CallerInput | undefined; spaceId: string; need: keyof SpacePermissions },
): Promise<SpaceAccess<SpaceSummary>> {
  const caller = requireCaller(input.caller);
  return grantSpace(em, deps, caller, await findSpaceSummary(em, input.spaceId), input);
}

async function grantSpace<S extends SpaceSummary>(
  em: EntityManager,
  deps: AccessDeps,
  { userId, tokenId }: CallerInput,
  space: S | null,
  input: { need: keyof SpacePermissions; includeDeleted?: boolean },
): Promise<SpaceAccess<S>> {
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
 * The caller's level on every collection of an organization, computed once for a list request:
 * lists filter and annotate many items without a query per item. Organizations hold few
 * collections next to their spaces, so they are read whole.
 */
export class OrganizationAccess {
  private constructor(
    readonly organizationId: string,
    readonly membership: Membership,
    private readonly collectionLevels: ReadonlyMap<string, Level | null>,
    private readonly grants: GrantedLevels,
    /** The best level grants (the member's and their teams') give inside each collection (its own grant or one of an ancestor's). */
    private readonly grantsInside: ReadonlyMap<string, Level>,
  ) {}

  static async load(em: EntityManager, organizationId: string, membership: Membership): Promise<OrganizationAccess> {
    const [rows, grants] = await Promise.all([
      em.find(Collection, { organizationId }, { fields: ["id", "parentId", "defaultLevel"] }),
      membership.role === "admin" ? Promise.resolve(NO_GRANTED_LEVELS) : grantedLevelsOf(em, membership),
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
      const granted = better(grants.collections.get(id) ?? null, parent?.granted ?? null);
      const level = better(levelOn(membership, row.defaultLevel ?? null, parent ? { level: parent.level } : null), granted);
      levels.set(id, level);
      if (granted) grantsInside.set(id, granted);
      return { level, granted };
    };
    for (const row of rows) resolve(row.id, 0);
    return new OrganizationAccess(organizationId, membership, levels, grants, grantsInside);
  }

  collectionLevel(collectionId: string): Level | null {
    return this.collectionLevels.get(collectionId) ?? null;
  }

  spaceLevel(space: Pick<Space, "id" | "defaultLevel" | "parentId">): Level | null {
    const parent = space.parentId ? { level: this.collectionLevel(space.parentId) } : null;
    const own = levelOn(this.membership, space.defaultLevel ?? null, parent);
    return better(own, better(this.grants.spaces.get(space.id) ?? null, space.parentId ? (this.grantsInside.get(space.parentId) ?? null) : null));
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
    // What the member or their teams were granted: the items themselves, and whatever a granted collection holds.
    const granted = [...this.grants.spaces.keys(), ...this.grants.collections.keys()];
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
