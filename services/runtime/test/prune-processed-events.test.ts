import { randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { ProcessedEvent } from "../src/events/entities.js";
import { PRUNE_PROCESSED_EVENTS_JOB, pruneProcessedEventsJob } from "../src/events/prune-processed-events.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, TestClock } from "../src/testing/index.js";

const DAY_MS = 24 * 3_600_000;

let orm: MikroORM;
beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "prune_processed");
  orm = await openDatabase({ url, entities: [], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
});
afterAll(() => orm?.close(true));

const logger = createLogger("prune-test", { level: "error", write: () => {} });

/** Records `count` handled events for `consumer` at the clock's now; answers their ids. */
async function recordProcessed(consumer: string, count: number, clock: TestClock): Promise<string[]> {
  const em = orm.em.fork();
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const eventId of ids) em.create(ProcessedEvent, { consumer, eventId, processedAt: clock.now() });
  await em.flush();
  return ids;
}

const remaining = async (consumer: string) =>
  (await orm.em.fork().find(ProcessedEvent, { consumer }, { orderBy: { eventId: "asc" } })).map((row) => row.eventId).sort();

describe("pruning processed-event records", () => {
  it("deletes, in batches, only the records older than the retention; a full batch asks to run again", async () => {
    const clock = new TestClock();
    const consumer = `prune-${randomUUID().slice(0, 8)}`;
    const job = pruneProcessedEventsJob({ orm, logger, clock: clock.now, retentionMs: 8 * DAY_MS, batchSize: 2 });
    expect(job.name).toBe(PRUNE_PROCESSED_EVENTS_JOB);

    await recordProcessed(consumer, 3, clock);
    clock.advanceDays(5);
    const recent = await recordProcessed(consumer, 2, clock);
    // Eight days after the first three: they are past the retention, the two recorded later are not.
    clock.advanceDays(3);
    clock.advance(1);

    expect(await job.run(new AbortController().signal)).toBe(true);
    expect(await remaining(consumer)).toHaveLength(3);
    expect(await job.run(new AbortController().signal)).toBe(false);
    expect(await remaining(consumer)).toEqual([...recent].sort());
    expect(await job.run(new AbortController().signal)).toBe(false);
    expect(await remaining(consumer)).toEqual([...recent].sort());

    // Exactly a batch left to delete: the run cannot know it was the last, so it asks once more.
    clock.advanceDays(5);
    expect(await job.run(new AbortController().signal)).toBe(true);
    expect(await job.run(new AbortController().signal)).toBe(false);
    expect(await remaining(consumer)).toEqual([]);
  });
});
