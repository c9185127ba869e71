import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "../../access/index.js";

/** A space's change-request and comment counters as the collaboration service last counted them. */
export interface SpaceCounters {
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  comments: number;
  /** Increases with every change of the space's counters. */
  version: number;
}

const COUNTS = ["changeRequests", "changeRequestsOpen", "changeRequestsDraft", "comments"] as const;

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** The counters an event payload carries (`spaceId`, `spaceCounters`), or undefined when it carries none. */
export function spaceCountersOf(payload: Record<string, unknown>): { spaceId: string; counters: SpaceCounters } | undefined {
  const { spaceId, spaceCounters } = payload;
  if (typeof spaceId !== "string" || !isId(spaceId)) return undefined;
  if (typeof spaceCounters !== "object" || spaceCounters === null) return undefined;
  const counters = spaceCounters as Record<string, unknown>;
  if (!COUNTS.every((name) => isCount(counters[name])) || !isCount(counters.version)) return undefined;
  return { spaceId, counters: counters as unknown as SpaceCounters };
}

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
