import type { ConsumerSpec } from "@imprint/runtime";
import { isId } from "../access/index.js";
import { indexSpace, type SearchIndexDeps } from "./index-space.js";

/** Content events that change what a space's search results must be. */
const INDEXED_EVENTS = new Set(["revision.created", "space.deleted", "space.restored", "space.purged"]);

/**
 * Keeps the search index on each space's current revision, from the content service's own events:
 * `revision.created` that moved the space's head (a commit, a merge, an import, a new or
 * duplicated space; not a revision of a change request's branch), and the lifecycle events that
 * hide or bring back a space. Every one of them runs the same convergent step, "index the space
 * as it is now" (indexSpace): a deleted or purged space is dropped, a restored one indexed again,
 * and a late or repeated event finds nothing to do.
 * Committing never waits for this: the commit only records the event.
 */
export function searchIndexConsumer(deps: SearchIndexDeps, consumer: string): ConsumerSpec {
  return {
    context: "content",
    consumer,
    filterSubject: "imprint.content.v1.>",
    // Indexing a 10,000-page import takes seconds; leave room before JetStream redelivers.
    ackWaitMs: 5 * 60 * 1000,
    handler: async (envelope, { em, logger }) => {
      if (!INDEXED_EVENTS.has(envelope.type)) return;
      const { spaceId, movedHead, changeRequestId } = envelope.payload as { spaceId?: unknown; movedHead?: unknown; changeRequestId?: unknown };
      if (typeof spaceId !== "string" || !isId(spaceId)) return;
      if (envelope.type === "revision.created" && movedHead !== true) return;
      // A change request's revision moved its branch's head, not the space's: nothing to index.
      if (envelope.type === "revision.created" && changeRequestId !== undefined) return;
      const started = performance.now();
      const result = await indexSpace(em, spaceId, deps);
      logger.debug("search index updated", { spaceId, ...result, durationMs: Math.round(performance.now() - started) });
    },
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
