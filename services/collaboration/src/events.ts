import type { EntityManager } from "@mikro-orm/postgresql";
import { contextEvents } from "@imprint/runtime";
import {
  ChangeRequestArchived,
  ChangeRequestCreated,
  ChangeRequestMerged,
  ChangeRequestUpdated,
  ChangeRequestUpdatedFromMain,
  CommentCreated,
  CommentDeleted,
  CommentReopened,
  CommentReplyCreated,
  CommentReplyDeleted,
  CommentReplyUpdated,
  CommentResolved,
  SpaceCountersAnnounced,
  CommentUpdated,
  type SpaceCounters,
} from "@imprint/proto/collaboration/v1/events";

/** Every collaboration event goes to the `IMPRINT_COLLABORATION` stream, subjects `imprint.collaboration.v1.<aggregate>.<event>`. */
export const COLLABORATION_EVENT_CONTEXT = "collaboration";

/**
 * The collaboration events, each payload a message of `proto/imprint/collaboration/v1/events.proto`
 * (listed in the event catalogue of docs/architecture.md, which a test checks against these
 * definitions).
 */
const collaborationEvent = contextEvents(COLLABORATION_EVENT_CONTEXT);

export const changeRequestCreated = collaborationEvent("change_request", "created", ChangeRequestCreated);
export const changeRequestUpdated = collaborationEvent("change_request", "updated", ChangeRequestUpdated);
export const changeRequestArchived = collaborationEvent("change_request", "archived", ChangeRequestArchived);
export const changeRequestMerged = collaborationEvent("change_request", "merged", ChangeRequestMerged);
export const changeRequestUpdatedFromMain = collaborationEvent("change_request", "updated_from_main", ChangeRequestUpdatedFromMain);
export const commentCreated = collaborationEvent("comment", "created", CommentCreated);
export const commentUpdated = collaborationEvent("comment", "updated", CommentUpdated);
export const commentResolved = collaborationEvent("comment", "resolved", CommentResolved);
export const commentReopened = collaborationEvent("comment", "reopened", CommentReopened);
export const commentDeleted = collaborationEvent("comment", "deleted", CommentDeleted);
export const commentReplyCreated = collaborationEvent("comment_reply", "created", CommentReplyCreated);
export const commentReplyUpdated = collaborationEvent("comment_reply", "updated", CommentReplyUpdated);
export const commentReplyDeleted = collaborationEvent("comment_reply", "deleted", CommentReplyDeleted);
export const spaceCountersAnnounced = collaborationEvent("space_counters", "announced", SpaceCountersAnnounced);

/**
 * Bumps the space's counters version and counts, after the transaction's changes are flushed.
 * The upsert takes the space's row lock first, so a concurrent transaction of the same space
 * commits before these counts are read (and gets a lower version): versions follow commit order
 * and each version's counts include every earlier commit.
 */
async function nextSpaceCounters(em: EntityManager, spaceId: string): Promise<SpaceCounters> {
  await em.flush();
  const [state] = await em.execute<{ counters_version: string }[]>(
    `insert into space_states (space_id, next_number, counters_version) values (?, 1, 1)
     on conflict (space_id) do update set counters_version = space_states.counters_version + 1
     returning counters_version`,
    [spaceId],
  );
  const [counts] = await em.execute<{ total: string; open: string; draft: string; comments: string }[]>(
    `select (select count(*) from change_requests where space_id = ?) as total,
            (select count(*) from change_requests where space_id = ? and status = 'open') as open,
            (select count(*) from change_requests where space_id = ? and status = 'draft') as draft,
            (select count(*) from comments where space_id = ? and change_request_id is null and resolved_at is null) as comments`,
    [spaceId, spaceId, spaceId, spaceId],
  );
  return {
    changeRequests: Number(counts!.total),
    changeRequestsOpen: Number(counts!.open),
    changeRequestsDraft: Number(counts!.draft),
    comments: Number(counts!.comments),
    version: Number(state!.counters_version),
  };
}

/**
 * A collaboration event's message: its own fields (`payload`) plus the space it concerns and that
 * space's counters as of this transaction (`spaceCounters`), so content keeps its space counters
 * from the events alone. Every collaboration event is recorded with one:
 * `recordEvent(tx, definition, { organizationId, actor, payload: await spaceEventPayload(tx, spaceId, {...}) })`.
 */
export async function spaceEventPayload<P extends object>(tx: EntityManager, spaceId: string, payload: P): Promise<P & { spaceId: string; spaceCounters: SpaceCounters }> {
  return { spaceId, spaceCounters: await nextSpaceCounters(tx, spaceId), ...payload };
}
