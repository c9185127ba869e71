import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { revisionCreated } from "../../events.js";
import { extractRevisionLinks } from "../use-cases/extract-revision-links.js";
import type { LinkDeps } from "../deps.js";

/**
 * The durable consumer's name: one per content database. Replicas of a deployment share their
 * database and so the consumer (each event handled once); test harnesses, each on a database of
 * its own, never take each other's events.
 */
export function linkExtractionConsumerName(databaseUrl: string): string {
  let database = "content";
  try {
    database = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, "")) || database;
  } catch {
    // An unparsable URL fails elsewhere at start-up; the default name is as good as any here.
  }
  return `content-links-${database.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 128);
}

/**
 * Extracts links right after each commit (`revision.created`), off the commit's path: a commit
 * never waits for it, and reads do not depend on it (they extract what is missing themselves).
 * Order-free by construction: a revision is immutable and its links are a function of it, so any
 * order, repetition or delay of these events stores the same rows (a cache warmed early, not a
 * projection that can diverge).
 */
export function linkExtractionConsumer(deps: LinkDeps, consumer: string): ConsumerSpec {
  return {
    context: "content",
    consumer,
    filterSubject: "imprint.content.v1.revision.created",
    // One space's revisions in order; other spaces' links are extracted meanwhile.
    keyOf: keyByAggregate([revisionCreated]),
    handler: handleEvents([revisionCreated], async ({ payload: { revisionId } }, { em, logger }) => {
      if (!isId(revisionId)) return;
      const counts = await extractRevisionLinks(em, deps, revisionId);
      if (counts) logger.debug("links extracted", { revisionId, extracted: counts.extracted, reused: counts.reused });
    }),
  };
}
