import { forkEm, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { createCollection } from "../use-cases/create-collection.js";
import { deleteCollection } from "../use-cases/delete-collection.js";
import { getCollection } from "../use-cases/get-collection.js";
import { listCollectionSpaces } from "../use-cases/list-collection-spaces.js";
import { listCollections } from "../use-cases/list-collections.js";
import { moveCollection } from "../use-cases/move-collection.js";
import { transferCollection } from "../use-cases/transfer-collection.js";
import { updateCollection } from "../use-cases/update-collection.js";
import { collectionToProto } from "./collection-mappers.js";
import { levelFromProto, parentFromProto, positionFromProto, spaceToProto } from "./space-mappers.js";
import type { SpaceServiceDeps } from "../../deps.js";

export const COLLECTION_SERVICE_NAME = "imprint.content.v1.CollectionService";

/** Thin transport over the collection use cases (see spaceServiceImplementation). */
export function collectionServiceImplementation(deps: SpaceServiceDeps): AsyncImplementation<typeof CollectionServiceService> {
  const em = () => forkEm(deps.orm);

  return {
    listCollections: async (request) => {
      const page = await listCollections(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page), topLevelOnly: request.topLevelOnly },
        deps,
      );
      return { collections: page.items.map(collectionToProto), page: pageInfo(page) };
    },

    createCollection: async (request) => {
      const view = await createCollection(
        em(),
        { caller: request.caller, organizationId: request.organizationId, title: request.title, parentId: request.parentId || null },
        deps,
      );
      return { collection: collectionToProto(view) };
    },

    getCollection: async (request) => {
      const view = await getCollection(em(), { caller: request.caller, collectionId: request.collectionId }, deps);
      return { collection: collectionToProto(view) };
    },

    updateCollection: async (request) => {
      const view = await updateCollection(
        em(),
        {
          caller: request.caller,
          collectionId: request.collectionId,
          updateMask: request.updateMask,
          title: request.title,
          description: request.description,
          defaultLevel: levelFromProto(request.defaultLevel),
        },
        deps,
      );
      return { collection: collectionToProto(view) };
    },

    deleteCollection: async (request) => {
      await deleteCollection(em(), { caller: request.caller, collectionId: request.collectionId }, deps);
      return {};
    },

    listCollectionSpaces: async (request) => {
      const page = await listCollectionSpaces(em(), { caller: request.caller, collectionId: request.collectionId, page: pageRequest(request.page) }, deps);
      return { spaces: page.items.map(spaceToProto), page: pageInfo(page) };
    },

    moveCollection: async (request) => {
      const view = await moveCollection(
        em(),
        { caller: request.caller, collectionId: request.collectionId, parent: parentFromProto(request.parent), position: positionFromProto(request.position) },
        deps,
      );
      return { collection: collectionToProto(view) };
    },

    transferCollection: async (request) => {
      const view = await transferCollection(em(), { caller: request.caller, collectionId: request.collectionId, organizationId: request.organizationId }, deps);
      return { collection: collectionToProto(view) };
    },
  };
}
