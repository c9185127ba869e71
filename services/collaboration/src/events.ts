import type { EntityManager } from "@mikro-orm/postgresql";
import { type EventDefinition, type EventPayload, queryRows, recordEvent, sql } from "@imprint/runtime";
import type { SpaceCounters } from "@imprint/proto/collaboration/v1/events";
import type { Comment } from "./domain/comment.js";
import type { CallerInput, UseCaseDeps } from "./deps.js";

/** Every collaboration event goes to the `IMPRINT_COLLABORATION` stream, subjects `imprint.collaboration.v1.<aggregate>.<event>`. */
export const COLLABORATION_EVENT_CONTEXT = "collaboration";

/**
 * The collaboration events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/collaboration/v1/events.proto` into `@imprint/proto/collaboration/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/collaboration/v1/event-contracts";

/**
 * Bumps the space's counters version and counts, after the transaction's changes are flushed.
 * The upsert takes the space's row lock first, so a concurrent transaction of the same space
 * commits before these counts are read (and gets a lower version): versions follow commit order
 * and each version's counts include every earlier commit.
 */
async function nextSpaceCounters(em: EntityManager, spaceId: string): Promise<SpaceCounters> {
  await em.flush();
  const [state] = await queryRows(em, sql<{ counters_version: string }>`insert into space_states (space_id, next_number, counters_version) values (${spaceId}, 1, 1)
     on conflict (space_id) do update set counters_version = space_states.counters_version + 1
     returning counters_version`);
  const [counts] = await queryRows(em, sql<{ total: string; open: string; draft: string; comments: string }>`select (select count(*) from change_requests where space_id = ${spaceId}) as total,
            (select count(*) from change_requests where space_id = ${spaceId} and status = 'open') as open,
            (select count(*) from change_requests where space_id = ${spaceId} and status = 'draft') as draft,
            (select count(*) from comments where space_id = ${spaceId} and change_request_id is null and resolved_at is null) as comments`);
  return {
    changeRequests: Number(counts!.total),
    changeRequestsOpen: Number(counts!.open),
    changeRequestsDraft: Number(counts!.draft),
    comments: Number(counts!.comments),
    version: Number(state!.counters_version),
  };
}

/** What every collaboration event's message starts with (see SpaceEvent); the recorder fills it in. */
interface SpaceEventFields {
  spaceId: string;
  spaceCounters?: SpaceCounters | undefined;
}

/** A collaboration event's own payload: its message without the space and counters. */
type OwnPayload<T> = Omit<EventPayload<T>, keyof SpaceEventFields>;

/**
 * Records a collaboration event in the current transaction (published by the relay after commit).
 * Every event concerns one space and carries that space's counters as of this transaction
 * (`spaceCounters`), so content keeps its space counters from the events alone.
 */
export async function recordCollaborationEvent<T extends SpaceEventFields>(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  definition: EventDefinition<T>,
  event: { organizationId: string; actor: CallerInput | null; spaceId: string; payload: NoInfer<OwnPayload<T>> },
): Promise<void> {
  const spaceCounters = await nextSpaceCounters(em, event.spaceId);
  // The message is exactly its own fields plus these two, which TypeScript cannot see through Omit.
  const payload = { spaceId: event.spaceId, spaceCounters, ...event.payload } as unknown as EventPayload<T>;
  recordEvent(em, definition, { organizationId: event.organizationId, actor: event.actor, payload, occurredAt: deps.clock() });
}

/** Records a `comment_reply.*` event for a reply of `comment`; `extra` holds the event's fields besides the ids. */
export async function recordReplyEvent<T extends SpaceEventFields & { commentId: string; replyId: string }>(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  actor: CallerInput,
  comment: Pick<Comment, "id" | "organizationId" | "spaceId" | "changeRequestId">,
  replyId: string,
  definition: EventDefinition<T>,
  extra: NoInfer<Omit<OwnPayload<T>, "commentId" | "replyId" | "changeRequestId">>,
): Promise<void> {
  const ids = { commentId: comment.id, replyId, changeRequestId: comment.changeRequestId };
  await recordCollaborationEvent(em, deps, definition, {
    organizationId: comment.organizationId,
    actor,
    spaceId: comment.spaceId,
    payload: { ...ids, ...extra } as unknown as NoInfer<OwnPayload<T>>,
  });
}
