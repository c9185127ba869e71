import type { EntityManager } from "@mikro-orm/postgresql";
import {
  collectionLevel,
  collectionPermissions,
  spaceLevel,
  spacePermissions,
  type CollectionPermissions,
  type Membership,
  type SpacePermissions,
} from "../../access/index.js";
import type { Collection } from "../domain/collection.js";
import type { Space } from "../domain/space.js";

/** A space with what the caller may do on it: what every space response carries. */
export interface SpaceView {
  space: Space;
  permissions: SpacePermissions;
}

/** A collection with what the caller may do on it. */
export interface CollectionView {
  collection: Collection;
  permissions: CollectionPermissions;
}

export async function spaceView(em: EntityManager, membership: Membership, space: Space): Promise<SpaceView> {
  return { space, permissions: spacePermissions(await spaceLevel(em, membership, space), space) };
}

export async function collectionView(em: EntityManager, membership: Membership, collection: Collection): Promise<CollectionView> {
  return { collection, permissions: collectionPermissions(await collectionLevel(em, membership, collection)) };
}
