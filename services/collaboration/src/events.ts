import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import type { SpaceCounters } from "@imprint/proto/collaboration/v1/events";

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
  const [state] = await queryRows(
    em,
    sql<{ counters_version: string }>`insert into space_states (space_id, next_number, counters_version) values (${spaceId}, 1, 1)
     on conflict (space_id) do update set counters_version = space_states.counters_version + 1
     returning counters_version`,
  );
  const [counts] = await queryRows(
    em,
    sql<{ total: string; open: string; draft: string; comments: string }>`select (select count(*) from change_requests where space_id = ${spaceId}) as total,
            (select count(*) from change_requests where space_id = ${spaceId} and status = 'open') as open,
            (select count(*) from change_requests where space_id = ${spaceId} and status = 'draft') as draft,
            (select count(*) from comments where space_id = ${spaceId} and change_request_id is null and resolved_at is null) as comments`,
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
export async function spaceEventPayload<P extends object>(
  tx: EntityManager,
  spaceId: string,
  payload: P,
): Promise<P & { spaceId: string; spaceCounters: SpaceCounters }> {
  return { spaceId, spaceCounters: await nextSpaceCounters(tx, spaceId), ...payload };
}
