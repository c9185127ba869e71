import { handleEvents, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { isId } from "../../access/index.js";
import { revisionCreated, spaceDeleted, spacePurged, spaceRestored } from "../../events.js";
import type { SearchIndexDeps } from "../../deps.js";
import { indexSpace } from "../use-cases/index-space.js";

/** Content events that change what a space's search results must be. */
const INDEXED_EVENTS = [revisionCreated, spaceDeleted, spaceRestored, spacePurged] as const;

/**
 * Keeps the search index on each space's current revision, from the content service's own events:
 * `revision.created` that moved the space's head (a commit, a merge, an import, a new or
 * duplicated space; not a revision of a change request's branch), and the lifecycle events that
 * hide or bring back a space. Every one of them runs the same convergent step, "index the space
 * as it is now" (indexSpace): a deleted or purged space is dropped, a restored one indexed again,
 * and a late or repeated event finds nothing to do.
 * Order-free by construction: the event only says which space to look at, and indexSpace reads
 * the space after taking its lock, so any order, repetition or delay ends with the index of the
 * space as it is (test/search-index-property.test.ts).
 * Committing never waits for this: the commit only records the event.
 */
export function searchIndexConsumer(deps: SearchIndexDeps, consumer: string): ConsumerSpec {
  return {
    context: "content",
    consumer,
    filterSubject: "imprint.content.v1.>",
    // One space's events in order; other spaces are indexed meanwhile.
    keyOf: keyByAggregate(INDEXED_EVENTS),
    // Indexing a 10,000-page import takes seconds; leave room before JetStream redelivers.
    ackWaitMs: 5 * 60 * 1000,
    handler: handleEvents(INDEXED_EVENTS, async (event, { em, logger }) => {
      const { spaceId } = event.payload;
      if (!isId(spaceId)) return;
      if (event.type === "revision.created" && !event.payload.movedHead) return;
      // A change request's revision moved its branch's head, not the space's: nothing to index.
      if (event.type === "revision.created" && event.payload.changeRequestId !== undefined) return;
      const started = performance.now();
      const result = await indexSpace(em, spaceId, deps);
      logger.debug("search index updated", { spaceId, ...result, durationMs: Math.round(performance.now() - started) });
    }),
  };
}

/**
 * The durable consumer's name when not configured: one per content database, which is exactly
 * the set of replicas that share the index (and the processed-event records).
 */
export function defaultSearchConsumerName(databaseUrl: string): string {
  let database = "content";
  try {
    database = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, "")) || database;
  } catch {
    // keep the fallback name
  }
  return `content-search-${database.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 128);
}
