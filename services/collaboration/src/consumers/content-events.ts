import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import {
  branchMerged,
  collectionTransferred,
  gitSyncConflictKept,
  revisionCreated,
  spacePurged,
  spaceTransferred,
} from "@imprint/proto/content/v1/event-contracts";
import type { CollaborationConfig } from "../config.js";
import type { UseCaseDeps } from "../deps.js";
import { openKeptChangeRequest } from "../use-cases/open-kept-change-request.js";
import { purgeSpace } from "../use-cases/purge-space.js";
import { recordBranchCommit } from "../use-cases/record-branch-commit.js";
import { recordBranchMerge } from "../use-cases/record-branch-merge.js";
import { transferSpace } from "../use-cases/transfer-space.js";

/** Content's events this service follows. */
const spaceEvents = [spacePurged, spaceTransferred] as const;
export const consumedContentEvents = [spacePurged, spaceTransferred, branchMerged, revisionCreated, collectionTransferred, gitSyncConflictKept] as const;

/** An id a payload must carry; events without one are not for us and are skipped. */
const id = (value: string | undefined) => (value !== undefined && isId(value) ? value : undefined);

/**
 * The content events this context follows, each through its own durable consumer (the runtime
 * handles each event once per consumer, in a transaction of this service's database):
 * - `space.purged` removes the space's collaboration data, `space.transferred` moves it along,
 *   and so does `collection.transferred` for each space under the collection;
 * - `branch.merged` records a merge content finished if this service has not yet;
 * - `revision.created` on a change request's branch makes its author a contributor;
 * - `git_sync.conflict_kept` opens the change request that keeps the side a Git Sync import's
 *   priority rule overruled (once per kept revision).
 * Order: a redelivery or a second replica may hand over an older event after a newer one. A
 * transfer applies only when its `lifecycleVersion` is newer than the space's last one; a purge is
 * final; recording a merge or a contributor is idempotent and order-free (a set, not a sequence),
 * so any order ends the same (test/content-events-property.test.ts).
 */
export function contentEventConsumers(deps: Pick<UseCaseDeps, "clock" | "content" | "unitOfWork">, config: CollaborationConfig): ConsumerSpec[] {
  return [
    {
      context: "content",
      consumer: config.SPACE_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.space.>",
      // A space's events in order (its transfer before its purge); other spaces meanwhile.
      keyOf: keyByAggregate(spaceEvents),
      handler: handleEvents(spaceEvents, async (event, { em }) => {
        const spaceId = id(event.payload.spaceId);
        if (!spaceId) return;
        if (event.type === "space.purged") await purgeSpace(em, { spaceId });
        const organizationId = event.type === "space.transferred" ? id(event.payload.toOrganizationId) : undefined;
        if (organizationId && event.type === "space.transferred")
          await transferSpace(em, { spaceId, organizationId, lifecycleVersion: event.payload.lifecycleVersion });
      }),
    },
    {
      context: "content",
      consumer: config.COLLECTION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.collection.transferred",
      keyOf: keyByAggregate([collectionTransferred]),
      handler: handleEvents([collectionTransferred], async ({ payload }, { em }) => {
        const organizationId = id(payload.toOrganizationId);
        if (!organizationId) return;
        for (const spaceId of payload.spaceIds.filter(isId)) {
          await transferSpace(em, { spaceId, organizationId, lifecycleVersion: payload.spaceLifecycleVersions[spaceId] ?? 0 });
        }
      }),
    },
    {
      context: "content",
      consumer: config.BRANCH_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.branch.merged",
      keyOf: keyByAggregate([branchMerged]),
      handler: handleEvents([branchMerged], async ({ payload: { changeRequestId, revisionId }, actor }, { em }) => {
        if (!id(changeRequestId) || !revisionId) return;
        await recordBranchMerge(em, { changeRequestId, revisionId, actor }, deps);
      }),
    },
    {
      context: "content",
      consumer: config.REVISION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.revision.created",
      keyOf: keyByAggregate([revisionCreated]),
      handler: handleEvents([revisionCreated], async ({ payload, actor }, { em }) => {
        const spaceId = id(payload.spaceId);
        const changeRequestId = id(payload.changeRequestId);
        if (!spaceId || !changeRequestId) return;
        await recordBranchCommit(em, { spaceId, changeRequestId, userId: actor?.userId ?? null }, deps);
      }),
    },
    {
      context: "content",
      consumer: config.GIT_SYNC_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.git_sync.conflict_kept",
      keyOf: keyByAggregate([gitSyncConflictKept]),
      handler: handleEvents([gitSyncConflictKept], async ({ payload, actor }, { em, logger }) => {
        const spaceId = id(payload.spaceId);
        const revisionId = id(payload.revisionId);
        if (!spaceId || !revisionId) return;
        const opened = await openKeptChangeRequest(em, { ...payload, spaceId, revisionId, actor }, deps);
        if (!opened)
          logger.warn("git sync: the connection's user may no longer edit the space; the kept revision has no change request", {
            space_id: spaceId,
            revision_id: revisionId,
          });
      }),
    },
  ];
}
