import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { collectionTransferred, revisionCreated, spacePurged, spaceTransferred, spaceUpdated } from "@imprint/proto/content/v1/event-contracts";
import type { IntegrationConfig } from "../config.js";
import type { UseCaseDeps } from "../deps.js";
import { recordSpaceContentUpdated } from "../use-cases/integration-events/record-space-content-updated.js";
import { recordSpaceVisibilityUpdated } from "../use-cases/integration-events/record-space-visibility-updated.js";
import { removeTarget } from "../use-cases/target-installations/remove-target.js";
import { wakeDelivery } from "../use-cases/shared/deliveries.js";

/** Content's events this service follows. */
const spaceEvents = [spaceUpdated, spacePurged, spaceTransferred] as const;
export const consumedContentEvents = [revisionCreated, spaceUpdated, spacePurged, spaceTransferred, collectionTransferred] as const;

/** A visibility value from a field change (`from`/`to` travel as JSON values). */
const visibilityValue = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * Content's events become integration events: a revision that moved a space's head is
 * `space_content_updated` (a change request's merge among them), a visibility change is
 * `space_visibility_updated`; a purged or transferred space takes its installations with it, and
 * so does each space of a transferred collection.
 * Events of one space in order; the delivery job is woken once each handler committed.
 * Order: these are deliveries, not a projection. Each names its own facts (the revision, the
 * visibility before and after), so a late one is still true of its moment, as GitBook's webhooks
 * are, unordered; what converges is the set of deliveries: one per source event and installation
 * (`sourceKey`), however often the event comes. Removing a space's installations is final for
 * them. Not covered: a transfer redelivered after the space came back and was installed again
 * removes that new installation.
 */
export function contentEventConsumers(deps: UseCaseDeps, config: IntegrationConfig): ConsumerSpec[] {
  return [
    {
      context: "content",
      consumer: config.REVISION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.revision.created",
      keyOf: keyByAggregate([revisionCreated]),
      afterCommit: () => wakeDelivery(deps),
      handler: handleEvents([revisionCreated], async (event, { em }) => {
        const { spaceId, revisionId, movedHead, changeRequestId } = event.payload;
        if (!isId(spaceId) || !event.organizationId || !movedHead || changeRequestId) return;
        await recordSpaceContentUpdated(
          em,
          { sourceEventId: event.id, organizationId: event.organizationId, spaceId, revisionId, actorUserId: event.actor?.userId ?? null },
          deps,
        );
      }),
    },
    {
      context: "content",
      consumer: config.SPACE_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.space.>",
      keyOf: keyByAggregate(spaceEvents),
      afterCommit: () => wakeDelivery(deps),
      handler: handleEvents(spaceEvents, async (event, { em }) => {
        const spaceId = event.payload.spaceId;
        if (!isId(spaceId) || !event.organizationId) return;
        if (event.type === "space.updated") {
          const change = event.payload.changes.visibility;
          if (!event.payload.changedFields.includes("visibility") || !change) return;
          await recordSpaceVisibilityUpdated(
            em,
            {
              sourceEventId: event.id,
              organizationId: event.organizationId,
              spaceId,
              previousVisibility: visibilityValue(change.from),
              visibility: visibilityValue(change.to),
            },
            deps,
          );
          return;
        }
        await removeTarget(em, { sourceEventId: event.id, kind: "space", targetId: spaceId }, deps);
      }),
    },
    {
      context: "content",
      consumer: config.COLLECTION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.collection.transferred",
      keyOf: keyByAggregate([collectionTransferred]),
      afterCommit: () => wakeDelivery(deps),
      handler: handleEvents([collectionTransferred], async (event, { em }) => {
        for (const spaceId of event.payload.spaceIds.filter(isId)) await removeTarget(em, { sourceEventId: event.id, kind: "space", targetId: spaceId }, deps);
      }),
    },
  ];
}
