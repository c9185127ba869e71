import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { Collection } from "../domain/collection.js";
import { collectionCreated } from "../../events.js";
import { requireCreateUnder } from "../store/parent.js";
import { placeAtEnd } from "../store/placement.js";
import { validateCollectionTitle } from "../domain/validation.js";
import { collectionView, type CollectionView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface CreateCollectionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  title: string;
  /** Parent collection of the same organization; null for the top level. */
  parentId: string | null;
}

/** Creates a collection at the end of its parent's items; needs the create level there. */
export async function createCollection(em: EntityManager, input: CreateCollectionInput, deps: SpaceDeps): Promise<CollectionView> {
  const title = validateCollectionTitle(input.title);
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const caller = input.caller!;
  const view = await deps.unitOfWork.run(em, async (tx) => {
    await requireCreateUnder(tx, membership, input.organizationId, input.parentId);
    const position = await placeAtEnd(tx, input.organizationId, input.parentId);
    const now = deps.clock();
    const collection = tx.create(Collection, {
      organizationId: input.organizationId,
      parentId: input.parentId,
      title,
      description: null,
      defaultLevel: "inherit",
      position,
      createdAt: now,
      updatedAt: now,
    });
    recordEvent(tx, collectionCreated, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { collectionId: collection.id, title, parentId: input.parentId },
    });
    return collectionView(tx, membership, collection);
  });
  return view;
}
