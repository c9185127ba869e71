import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { requireCollectionAccess } from "./shared/access.js";
import type { CollectionView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface GetCollectionInput {
  caller: CallerInput | undefined;
  collectionId: string;
}

/** A collection the caller can view. */
export async function getCollection(em: EntityManager, input: GetCollectionInput, deps: SpaceDeps): Promise<CollectionView> {
  const { collection, permissions } = await requireCollectionAccess(em, deps, { caller: input.caller, collectionId: input.collectionId, need: "view" });
  return { collection, permissions };
}
