import { isId } from "../caller.js";

/**
 * A space's change-request and comment counters, as collaboration events carry them
 * (`spaceCounters` beside `spaceId`) and content stores them on the space: the one definition
 * of that payload for its writer and its reader.
 */
export interface SpaceCounters {
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  /** Open comments on the space's own content (not on its change requests). */
  comments: number;
  /** Increases with every event of the space, in commit order: readers ignore older counters. */
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
