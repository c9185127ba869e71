import type { EntityManager } from "@mikro-orm/postgresql";
import type { SpaceCounters } from "@imprint/proto/collaboration/v1/events";

/**
 * Bumps the space's counters version and counts, after the transaction's changes are flushed.
 * The upsert takes the space's row lock first, so a concurrent transaction of the same space
 * commits before these counts are read (and gets a lower version): versions follow commit order
 * and each version's counts include every earlier commit.
 */
export async function nextSpaceCounters(em: EntityManager, spaceId: string): Promise<SpaceCounters> {
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
