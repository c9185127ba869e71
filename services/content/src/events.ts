import type { EntityManager } from "@mikro-orm/postgresql";
import { contextEvents, recordEvent, type Clock, type EventDefinition, type RecordEventInput } from "@imprint/runtime";
import {
  BranchCreated,
  BranchMerged,
  BranchUpdated,
  CollectionCreated,
  CollectionDeleted,
  CollectionMoved,
  CollectionTransferred,
  CollectionUpdated,
  OpenApiSpecCreated,
  OpenApiSpecDeleted,
  OpenApiSpecProcessed,
  OpenApiSpecUpdated,
  RevisionCreated,
  SpaceCreated,
  SpaceDeleted,
  SpaceDuplicated,
  SpaceMoved,
  SpacePurged,
  SpaceRestored,
  SpaceTransferred,
  SpaceUpdated,
  TranslationSettingsCreated,
  TranslationSettingsDeleted,
  TranslationSettingsUpdated,
} from "@imprint/proto/content/v1/events";
import type { CallerInput } from "./access/index.js";

/** Every content event goes to the `IMPRINT_CONTENT` stream, subjects `imprint.content.v1.<aggregate>.<event>`. */
export const CONTENT_EVENT_CONTEXT = "content";

/**
 * The content events, each payload a message of `proto/imprint/content/v1/events.proto` (listed in
 * the event catalogue of docs/architecture.md, which a test checks against these definitions).
 */
const contentEvent = contextEvents(CONTENT_EVENT_CONTEXT);

export const spaceCreated = contentEvent("space", "created", SpaceCreated);
export const spaceUpdated = contentEvent("space", "updated", SpaceUpdated);
export const spaceDeleted = contentEvent("space", "deleted", SpaceDeleted);
export const spaceRestored = contentEvent("space", "restored", SpaceRestored);
export const spacePurged = contentEvent("space", "purged", SpacePurged);
export const spaceMoved = contentEvent("space", "moved", SpaceMoved);
export const spaceTransferred = contentEvent("space", "transferred", SpaceTransferred);
export const spaceDuplicated = contentEvent("space", "duplicated", SpaceDuplicated);
export const collectionCreated = contentEvent("collection", "created", CollectionCreated);
export const collectionUpdated = contentEvent("collection", "updated", CollectionUpdated);
export const collectionMoved = contentEvent("collection", "moved", CollectionMoved);
export const collectionDeleted = contentEvent("collection", "deleted", CollectionDeleted);
export const collectionTransferred = contentEvent("collection", "transferred", CollectionTransferred);
export const revisionCreated = contentEvent("revision", "created", RevisionCreated);
export const branchCreated = contentEvent("branch", "created", BranchCreated);
export const branchMerged = contentEvent("branch", "merged", BranchMerged);
export const branchUpdated = contentEvent("branch", "updated", BranchUpdated);
export const openApiSpecCreated = contentEvent("openapi_spec", "created", OpenApiSpecCreated);
export const openApiSpecUpdated = contentEvent("openapi_spec", "updated", OpenApiSpecUpdated);
export const openApiSpecProcessed = contentEvent("openapi_spec", "processed", OpenApiSpecProcessed);
export const openApiSpecDeleted = contentEvent("openapi_spec", "deleted", OpenApiSpecDeleted);
export const translationSettingsCreated = contentEvent("translation_settings", "created", TranslationSettingsCreated);
export const translationSettingsUpdated = contentEvent("translation_settings", "updated", TranslationSettingsUpdated);
export const translationSettingsDeleted = contentEvent("translation_settings", "deleted", TranslationSettingsDeleted);

/** Records a content event in the current transaction (published by the relay after commit), at the clock's time. */
export function recordContentEvent<T>(
  em: EntityManager,
  deps: { clock: Clock },
  definition: EventDefinition<T>,
  event: Omit<RecordEventInput<T>, "occurredAt"> & { organizationId: string; actor: CallerInput | null },
): void {
  recordEvent(em, definition, { ...event, occurredAt: deps.clock() });
}
