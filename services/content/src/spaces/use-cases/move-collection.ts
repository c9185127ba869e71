import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { collectionLevel, collectionPermissions, requireCaller, type CallerInput } from "../../access/index.js";
import { requireCollectionAccess } from "./shared/access.js";
import { collectionMoved } from "../../events.js";
import { requireCreateUnder } from "../store/parent.js";
import { lockSiblings, parentOfPointer, resolvePosition, type PositionInput } from "../store/placement.js";
import type { CollectionView } from "../store/views.js";
import { collectionSubtreeIds } from "../store/subtree.js";
import type { SpaceDeps } from "../../deps.js";

export interface MoveCollectionInput {
  caller: CallerInput | undefined;
  collectionId: string;
  /** `{ collectionId: null }` = the top level; undefined = the parent of the position's sibling, else the current parent. */
  parent: { collectionId: string | null } | undefined;
  position: PositionInput | undefined;
}

/**
 * Moves a collection among its siblings and/or under another collection: one row changes. Needs
 * the admin level on it and, when the parent changes, the create level in the new parent. A
 * collection cannot go inside itself or its own sub-collections.
 */
export async function moveCollection(em: EntityManager, input: MoveCollectionInput, deps: SpaceDeps): Promise<CollectionView> {
  const caller = requireCaller(input.caller);
  const view = await deps.unitOfWork.run(em, async (tx) => {
    const { collection, membership } = await requireCollectionAccess(tx, deps, { caller, collectionId: input.collectionId, need: "admin", lock: true });
    const fromParentId = collection.parentId ?? null;
    const pointerParent = input.parent ? undefined : await parentOfPointer(tx, input.position);
    const parentId = input.parent ? input.parent.collectionId : pointerParent === undefined ? fromParentId : pointerParent;
    if (parentId !== fromParentId) {
      if (parentId !== null && (await collectionSubtreeIds(tx, collection.id)).includes(parentId)) {
        throw AppError.invalidArgument("parent: a collection cannot move into itself or one of its sub-collections");
      }
      await requireCreateUnder(tx, membership, collection.organizationId, parentId);
    }
    await lockSiblings(tx, collection.organizationId, parentId);
    const position = await resolvePosition(tx, { organizationId: collection.organizationId, parentId, position: input.position, movingId: collection.id });
    collection.placeAt({ parentId, position }, deps.clock());
    recordEvent(tx, collectionMoved, {
      organizationId: collection.organizationId,
      actor: caller,
      payload: { collectionId: collection.id, fromParentId, parentId, position: collection.position },
    });
    return { collection, permissions: collectionPermissions(await collectionLevel(tx, membership, collection)) };
  });
  return view;
}
