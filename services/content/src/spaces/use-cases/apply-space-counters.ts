import type { EntityManager } from "@mikro-orm/postgresql";
import type { SpaceCounters } from "@imprint/proto/collaboration/v1/events";

/**
 * Sets the space's counters unless it already has these or newer ones: events may arrive late,
 * twice or out of order, and only a higher version replaces what is stored. Answers whether the
 * space changed (false for an older version or an unknown space).
 */
export async function applySpaceCounters(em: EntityManager, spaceId: string, counters: SpaceCounters): Promise<boolean> {
  const changed = await em.execute<{ id: string }[]>(
    `update spaces set change_requests = ?, change_requests_open = ?, change_requests_draft = ?, comments = ?, counters_version = ?
     where id = ? and counters_version < ? returning id`,
    [counters.changeRequests, counters.changeRequestsOpen, counters.changeRequestsDraft, counters.comments, counters.version, spaceId, counters.version],
  );
  return changed.length === 1;
}
