import { defineEntity, p } from "@mikro-orm/postgresql";
import { DEFAULT_LEVELS } from "../../access/index.js";
import { POSITION_COLLATION, type Placement } from "./ordering.js";

export const COLLECTION_TITLE_MAX = 50;
export const COLLECTION_DESCRIPTION_MAX = 100;

/**
 * A folder of spaces and other collections inside an organization. `parentId` is the parent
 * collection (null at the organization's top level); `position` orders it among its siblings,
 * spaces included.
 */
export const CollectionSchema = defineEntity({
  name: "Collection",
  tableName: "collections",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    parentId: p.uuid().nullable(),
    title: p.string().length(COLLECTION_TITLE_MAX),
    description: p.string().length(COLLECTION_DESCRIPTION_MAX).nullable(),
    /** A level, `inherit`, or null (nothing for non-admin members). */
    defaultLevel: p.enum(DEFAULT_LEVELS).nullable(),
    position: p.string().length(128).collation(POSITION_COLLATION),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [
    { properties: ["organizationId", "parentId", "position"], name: "collections_organization_parent_position_index" },
    { properties: ["organizationId", "position", "id"], name: "collections_organization_position_index" },
  ],
});
export class Collection extends CollectionSchema.class {
  /** Puts the collection at `place` (its sub-collections and spaces follow through their parent ids). */
  placeAt(place: Placement, now: Date): void {
    if (place.organizationId !== undefined) this.organizationId = place.organizationId;
    this.parentId = place.parentId;
    this.position = place.position;
    this.updatedAt = now;
  }
}
CollectionSchema.setClass(Collection);
