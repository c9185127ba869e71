import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import {
  collectionTransferred,
  revisionCreated,
  spaceDeleted,
  spaceMoved,
  spacePurged,
  spaceRestored,
  spaceTransferred,
  spaceUpdated,
} from "@imprint/proto/content/v1/event-contracts";
import type { PublishingConfig } from "../config.js";
import type { UseCaseDeps } from "../deps.js";
import { recordPageMoves } from "../use-cases/redirects/record-page-moves.js";
import { purgeSpace } from "../use-cases/spaces/purge-space.js";
import { setSpaceDeleted } from "../use-cases/spaces/set-space-deleted.js";
import { announcePublications } from "../use-cases/shared/publications.js";
import { acceptLifecycleVersion } from "../use-cases/shared/space-lifecycle.js";
import { touchSitesOfSpaces } from "../use-cases/shared/sites.js";
import { transferSpace } from "../use-cases/spaces/transfer-space.js";

/** Content's space events this service follows. */
export const consumedContentEvents = [spaceDeleted, spaceRestored, spacePurged, spaceTransferred, spaceUpdated, spaceMoved] as const;

/** An id a payload must carry; events without one are not for us and are skipped. */
const id = (value: string | undefined) => (value !== undefined && isId(value) ? value : undefined);

/**
 * Content's space events, through one durable consumer (the runtime handles each event once, in a
 * transaction of this service's database; a space's events in order): a deleted space is hidden
 * from every site and shown again on restore; a purged one leaves them; a transferred one leaves
 * the sites of its former organization; an updated or moved one changes what the sites publishing it
 * show (their version moves, so readers of their published view fetch it again).
 * Order: a redelivery or a second replica may still hand over an older event after a newer one.
 * Deletions and restorations carry the space's `lifecycleVersion` and apply only when newer than
 * the one kept per space (space_lifecycles): a late deletion never hides a restored space. A
 * transfer only takes the space off its former organization's sites, whenever it comes (a removal:
 * idempotent, and commutes with hiding and showing); a purge is final (nothing of the space is left
 * to change); updates and moves only make the sites' views be read again (commutative). Not
 * covered: a transfer redelivered so late that the space came back meanwhile and was added to a
 * site of that organization again takes it off that site again.
 * test/content-events-property.test.ts feeds them shuffled, duplicated and delayed.
 */
export function contentEventConsumers(deps: Pick<UseCaseDeps, "clock">, config: PublishingConfig): ConsumerSpec[] {
  return [
    {
      context: "content",
      consumer: config.SPACE_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.space.>",
      keyOf: keyByAggregate(consumedContentEvents),
      handler: handleEvents(consumedContentEvents, async (event, { em }) => {
        const spaceId = id(event.payload.spaceId);
        if (!spaceId) return;
        switch (event.type) {
          case "space.deleted":
          case "space.restored":
            if (!(await acceptLifecycleVersion(em, spaceId, event.payload.lifecycleVersion))) return;
            await setSpaceDeleted(em, { spaceId, deleted: event.type === "space.deleted" });
            break;
          case "space.purged":
            await purgeSpace(em, { spaceId }, deps);
            break;
          case "space.updated":
          case "space.moved":
            await touchSitesOfSpaces(em, [spaceId]);
            break;
          case "space.transferred": {
            const fromOrganizationId = id(event.payload.fromOrganizationId);
            if (fromOrganizationId) await transferSpace(em, { spaceId, fromOrganizationId }, deps);
            break;
          }
        }
        // Where the space is shown may have changed: content learns it from the announcement.
        await announcePublications(em, deps);
      }),
    },
    {
      // A transferred collection takes its spaces along: each leaves its former organization's sites, as on its own transfer.
      context: "content",
      consumer: config.COLLECTION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.collection.transferred",
      keyOf: keyByAggregate([collectionTransferred]),
      handler: handleEvents([collectionTransferred], async ({ payload }, { em }) => {
        const fromOrganizationId = id(payload.fromOrganizationId);
        if (!fromOrganizationId) return;
        for (const spaceId of payload.spaceIds.filter(isId)) await transferSpace(em, { spaceId, fromOrganizationId }, deps);
        await announcePublications(em, deps);
      }),
    },
  ];
}

/**
 * Content's `revision.created`: a space's new head whose pages moved leaves redirects from their old
 * addresses on the published sites showing the space (recordPageMoves). Commutative by
 * construction: the moves are computed from the two immutable revisions, so a duplicate finds the
 * same moves and upserts the same redirects; a source two moves compete for goes to the later
 * commit, whatever order they arrive in.
 */
export function pageMoveConsumer(deps: Pick<UseCaseDeps, "clock" | "published">, config: PublishingConfig): ConsumerSpec {
  return {
    // A space's new head: pages it moved leave redirects from their old addresses on the published
    // sites showing the space (recordPageMoves: computed from the two immutable revisions, so a
    // duplicate finds the same moves; a late older move never takes a source back).
    context: "content",
    consumer: config.REVISION_EVENTS_CONSUMER,
    filterSubject: "imprint.content.v1.revision.created",
    keyOf: keyByAggregate([revisionCreated]),
    handler: handleEvents([revisionCreated], async ({ payload, occurredAt }, { em }) => {
      const spaceId = id(payload.spaceId);
      const parentRevisionId = payload.parents[0];
      if (!spaceId || !payload.movedHead || payload.changeRequestId || !parentRevisionId) return;
      await recordPageMoves(em, { spaceId, revisionId: payload.revisionId, parentRevisionId, movedAt: new Date(occurredAt) }, deps);
    }),
  };
}
