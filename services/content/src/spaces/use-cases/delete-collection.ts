import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireCollectionAccess } from "./shared/access.js";
import { Collection } from "../domain/collection.js";
import { positionsBetween } from "../domain/ordering.js";
import { Space } from "../domain/space.js";
import { collectionDeleted } from "../../events.js";
import { lockSiblings, positionAtEnd } from "../store/placement.js";
import type { SpaceDeps } from "../../deps.js";

export interface DeleteCollectionInput {
  caller: CallerInput | undefined;
  collectionId: string;
}

/**
 * Deletes a collection (admin level). Nothing inside is lost: its spaces (deleted ones included)
 * and sub-collections move to its parent, after the parent's current items and in their own
 * order. Children that inherited their default level take the deleted collection's level, so
 * nobody gains or loses access by the deletion. A collection that is missing or invisible to the
 * caller is "already gone": `deleted` is false.
 */
export async function deleteCollection(em: EntityManager, input: DeleteCollectionInput, deps: SpaceDeps): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    let access;
    try {
      access = await requireCollectionAccess(tx, deps, { caller, collectionId: input.collectionId, need: "admin", lock: true });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return false;
      throw error;
    }
    const { collection } = access;
    const parentId = collection.parentId ?? null;
    await lockSiblings(tx, collection.organizationId, parentId);
    await lockSiblings(tx, collection.organizationId, collection.id);
    const spaces = await tx.find(Space, { parentId: collection.id }, { orderBy: { position: "asc", id: "asc" } });
    const collections = await tx.find(Collection, { parentId: collection.id }, { orderBy: { position: "asc", id: "asc" } });
    const children = [...spaces, ...collections].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1));
    if (children.length > 0) {
      const last = await positionAtEnd(tx, collection.organizationId, parentId, collection.id);
      // positionAtEnd gives a key after the last item; the children start there.
      const keys = [last, ...positionsBetween(last, null, children.length - 1)];
      const now = deps.clock();
      children.forEach((child, index) => {
        child.parentId = parentId;
        child.position = keys[index]!;
        if (child.defaultLevel === "inherit") child.defaultLevel = collection.defaultLevel ?? null;
        if (child instanceof Space && parentId === null && child.visibility === "in-collection") child.visibility = "private";
        child.updatedAt = now;
      });
    }
    tx.remove(collection);
    recordEvent(tx, collectionDeleted, {
      organizationId: collection.organizationId,
      actor: caller,
      payload: {
        collectionId: collection.id,
        parentId,
        movedSpaceIds: spaces.map((space) => space.id),
        movedCollectionIds: collections.map((child) => child.id),
      },
    });
    return true;
  });
  return { deleted };
}
