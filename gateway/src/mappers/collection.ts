import type { Collection } from "@imprint/proto/content/v1/collections";
import { AppError } from "@imprint/runtime/core";
import { toRestLevel, type RestDefaultLevel } from "./space.js";
import type { PublicUrls } from "./urls.js";

export interface RestCollection {
  object: "collection";
  id: string;
  title: string;
  description?: string;
  organization: string;
  parent?: string;
  defaultLevel: RestDefaultLevel;
  urls: { location: string; app: string };
  permissions: { view: boolean; admin: boolean; viewInviteLinks: boolean; create: boolean };
}

/** API URL of a collection (also its `Location` when created). */
export function collectionLocation(urls: PublicUrls, collectionId: string): string {
  return `${urls.api}/v1/collections/${encodeURIComponent(collectionId)}`;
}

/** GitBook's collection object; empty strings from proto3 (no description, no parent) are left out. */
export function toRestCollection(collection: Collection | undefined, urls: PublicUrls): RestCollection {
  if (!collection) throw new AppError("internal", "upstream answered without a collection");
  const p = collection.permissions;
  const rest: RestCollection = {
    object: "collection",
    id: collection.id,
    title: collection.title,
    organization: collection.organizationId,
    defaultLevel: toRestLevel(collection.defaultLevel),
    urls: {
      location: collectionLocation(urls, collection.id),
      app: `${urls.app}/o/${encodeURIComponent(collection.organizationId)}/c/${encodeURIComponent(collection.id)}/`,
    },
    permissions: { view: p?.view ?? false, admin: p?.admin ?? false, viewInviteLinks: p?.viewInviteLinks ?? false, create: p?.create ?? false },
  };
  if (collection.description) rest.description = collection.description;
  if (collection.parentId) rest.parent = collection.parentId;
  return rest;
}
