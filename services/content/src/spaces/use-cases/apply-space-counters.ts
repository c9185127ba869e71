import type { EntityManager } from "@mikro-orm/postgresql";
import type { SpaceCounters } from "@imprint/proto/collaboration/v1/events";
import { queryRows, sql } from "@imprint/runtime";

/**
 * Sets the space's counters unless it already has these or newer ones: events may arrive late,
 * twice or out of order, and only a higher version replaces what is stored. Answers whether the
 * space changed (false for an older version or an unknown space).
 */
export async function applySpaceCounters(em: EntityManager, spaceId: string, counters: SpaceCounters): Promise<boolean> {
  const changed = await queryRows(
    em,
    sql<{
      id: string;
    }>`update spaces set change_requests = ${counters.changeRequests}, change_requests_open = ${counters.changeRequestsOpen}, change_requests_draft = ${counters.changeRequestsDraft}, comments = ${counters.comments}, counters_version = ${counters.version}
     where id = ${spaceId} and counters_version < ${counters.version} returning id`,
  );
  return changed.length === 1;
}
