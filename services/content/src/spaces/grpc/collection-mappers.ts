import type { Collection as CollectionMessage } from "@imprint/proto/content/v1/collections";
import type { CollectionView } from "../store/views.js";
import { levelToProto } from "./space-mappers.js";

export function collectionToProto({ collection, permissions }: CollectionView): CollectionMessage {
  return {
    id: collection.id,
    organizationId: collection.organizationId,
    parentId: collection.parentId ?? "",
    title: collection.title,
    description: collection.description ?? "",
    defaultLevel: levelToProto(collection.defaultLevel),
    createdAt: collection.createdAt,
    updatedAt: collection.updatedAt,
    permissions,
  };
}
