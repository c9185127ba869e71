import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { DEFAULT_LEVELS } from "../../access/index.js";
import type { SpaceMergeRules } from "./merge-rules.js";
import { POSITION_COLLATION, type Placement } from "./ordering.js";

export const SPACE_TITLE_MAX = 50;
export const SPACE_EMOJI_MAX = 50;
/** Deleted spaces can be restored for this long, then the purge job removes them. */
export const SPACE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export const SPACE_VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth", "in-collection", "private"] as const;
export type SpaceVisibility = (typeof SPACE_VISIBILITIES)[number];
/** GitBook's TranslationLanguage codes: the languages a space may be written in. */
export const SPACE_LANGUAGES: readonly string[] =
  "en fr de es it pt pt-br ru ja zh zh-tw yue ko ar hi nl pl tr sv no da fi el cs hu ro th vi id ms he uk sk bg hr lt lv et sl".split(" ");
export const SPACE_EDIT_MODES = ["live", "locked"] as const;
export type SpaceEditMode = (typeof SPACE_EDIT_MODES)[number];

/**
 * A space: the unit of content. `revisionId` points at its current revision; the revision store
 * moves it only by compare-and-set. A deleted space keeps its row with `deletedAt` until the purge.
 * The counters (comments, change requests) are a projection of the collaboration service's events.
 */
export const SpaceSchema = defineEntity({
  name: "Space",
  tableName: "spaces",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    parentId: p.uuid().nullable(),
    title: p.string().length(SPACE_TITLE_MAX),
    emoji: p.string().length(SPACE_EMOJI_MAX).default(""),
    visibility: p.enum(SPACE_VISIBILITIES).default("private"),
    editMode: p.enum(SPACE_EDIT_MODES).default("live"),
    /** One of SPACE_LANGUAGES; null while none was chosen (the reader then speaks English). */
    language: p.string().length(16).nullable(),
    /** A level, `inherit`, or null (nothing for non-admin members). */
    defaultLevel: p.enum(DEFAULT_LEVELS).nullable(),
    /** The space's own merge rules (type "none" or "rules"); null inherits the organization's. */
    mergeRules: p.json<SpaceMergeRules>().nullable(),
    position: p.string().length(128).collation(POSITION_COLLATION),
    revisionId: p.string().length(64).nullable(),
    comments: p.integer().default(0),
    changeRequests: p.integer().default(0),
    changeRequestsOpen: p.integer().default(0),
    changeRequestsDraft: p.integer().default(0),
    /** Version of the four counters above (the collaboration service's); older updates are ignored. */
    countersVersion: p.bigint("number").defaultRaw("0"),
    /** Where the space is published (publishing's `space_publication.updated`, as JSON); null while unpublished. */
    publishedAddress: p.text().nullable(),
    /** Version of the address above (publishing's, per space); older announcements are ignored. */
    publishedVersion: p.integer().default(0),
    /** +1 per deletion, restoration and transfer (`lifecycleVersion` of those events), so their consumers can order them. */
    lifecycleVersion: p.integer().default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ["organizationId", "parentId", "position"], name: "spaces_organization_parent_position_index" },
    { properties: ["organizationId", "position", "id"], name: "spaces_organization_position_index" },
    { properties: ["deletedAt"], name: "spaces_deleted_at_index" },
  ],
});
export class Space extends SpaceSchema.class {
  /** Puts the space at `place`; "in-collection" only exists inside a collection, so a space moved to the top level turns private. */
  placeAt(place: Placement, now: Date): void {
    if (place.organizationId !== undefined) this.organizationId = place.organizationId;
    this.parentId = place.parentId;
    this.position = place.position;
    if (place.parentId === null && this.visibility === "in-collection") this.visibility = "private";
    this.updatedAt = now;
  }

  /** Soft-deletes the space at `now`: it leaves reads and lists, restorable for SPACE_RETENTION_MS. */
  softDelete(now: Date): void {
    this.deletedAt = now;
    this.updatedAt = now;
  }

  /** The next lifecycle version, for the event of a deletion, restoration or transfer (the space's row is locked). */
  nextLifecycleVersion(): number {
    this.lifecycleVersion += 1;
    return this.lifecycleVersion;
  }

  /**
   * Brings a deleted space back at `now`; false when it was not deleted. Past the retention window
   * it is "not found" whether or not the purge already removed it: the window is the rule, not the
   * purge's timing.
   */
  restore(now: Date): boolean {
    if (this.deletedAt === null || this.deletedAt === undefined) return false;
    if (now.getTime() - this.deletedAt.getTime() > SPACE_RETENTION_MS) throw AppError.notFound("Space");
    this.deletedAt = null;
    this.updatedAt = now;
    return true;
  }
}
SpaceSchema.setClass(Space);
