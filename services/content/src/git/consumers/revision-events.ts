import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { revisionCreated } from "../../events.js";
import { GIT_SYNC_JOB } from "../domain/sync-job.js";
import { queueExport } from "../use-cases/shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/** The durable consumer's name: one per content database (replicas share it; test harnesses each have their own). */
export function gitSyncConsumerName(databaseUrl: string): string {
  let database = "content";
  try {
    database = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, "")) || database;
  } catch {
    // An unparsable URL fails elsewhere at start-up; the default name is as good as any here.
  }
  return `content-git-sync-${database.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 128);
}

/**
 * Git Sync, Imprint → repository: each move of a connected space's head (`revision.created` with
 * `moved_head` on the space: a merged change request, a direct edit) queues an export of it for
 * the Git sync job, its actor the commit's author. Idempotent: a redelivered or late event names
 * a revision already synced or already queued and queues nothing new; a later move replaces an
 * earlier one still waiting (the export writes the current content either way).
 */
export function gitSyncConsumer(deps: GitDeps, consumer: string): ConsumerSpec {
  return {
    context: "content",
    consumer,
    filterSubject: "imprint.content.v1.revision.created",
    keyOf: keyByAggregate([revisionCreated]),
    handler: handleEvents([revisionCreated], async ({ payload, actor }, { em }) => {
      if (!payload.movedHead || payload.changeRequestId || !isId(payload.spaceId) || !actor?.userId) return;
      await queueExport(em, payload.spaceId, payload.revisionId, actor.userId, deps.clock());
    }),
    // Woken once the handler's transaction committed (woken before, the job could look, find
    // nothing yet and wait a whole retry interval); after every event, since handlers of several
    // spaces commit in any order and a look that finds nothing costs two small queries.
    afterCommit: () => deps.jobs.wake(GIT_SYNC_JOB),
  };
}
