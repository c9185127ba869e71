import { randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { createUnitOfWork, transactionTime, useTransactionClock } from "../src/db/unit-of-work.js";
import { ProcessedEvent } from "../src/events/entities.js";
import { createTestDatabase } from "../src/testing/index.js";

let orm: MikroORM;
beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "unit_of_work");
  orm = await openDatabase({ url, entities: [], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
});
afterAll(() => orm?.close(true));

/** A unit of work whose relay counts its wake-ups and what was committed when each came. */
function recordingUnitOfWork() {
  const wakeUps: number[] = [];
  const unitOfWork = createUnitOfWork({
    notify: () =>
      void orm.em
        .fork()
        .count(ProcessedEvent, {})
        .then((rows) => wakeUps.push(rows)),
  });
  return { unitOfWork, wakeUps };
}

const row = (consumer: string) => ({ consumer, eventId: randomUUID(), processedAt: new Date() });

describe("unit of work", () => {
  it("commits the work, then wakes the relay once, after the commit", async () => {
    await orm.em.fork().nativeDelete(ProcessedEvent, {});
    const { unitOfWork, wakeUps } = recordingUnitOfWork();
    const result = await unitOfWork.run(orm.em.fork(), async (tx) => {
      tx.create(ProcessedEvent, row("a"));
      return "done";
    });
    expect(result).toBe("done");
    await expect.poll(() => wakeUps).toEqual([1]);
  });

  it("wakes nobody and keeps nothing when the work fails", async () => {
    const { unitOfWork, wakeUps } = recordingUnitOfWork();
    await expect(
      unitOfWork.run(orm.em.fork(), async (tx) => {
        tx.create(ProcessedEvent, row("failed"));
        await tx.flush();
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await orm.em.fork().count(ProcessedEvent, { consumer: "failed" })).toBe(0);
    expect(wakeUps).toEqual([]);
  });

  it("inside a transaction already, leaves the wake-up to whoever commits that one", async () => {
    const { unitOfWork, wakeUps } = recordingUnitOfWork();
    await orm.em.fork().transactional(async (outer) => {
      await unitOfWork.run(outer, async (tx) => void tx.create(ProcessedEvent, row("nested")));
      expect(wakeUps).toEqual([]);
    });
    expect(await orm.em.fork().count(ProcessedEvent, { consumer: "nested" })).toBe(1);
    expect(wakeUps).toEqual([]);
  });

  it("gives each transaction one time from the database's clock, shared by a nested unit of work", async () => {
    const ticks = [new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:01Z"), new Date("2026-01-01T00:00:02Z")];
    let tick = 0;
    useTransactionClock(orm, () => ticks[tick++]!);
    const { unitOfWork, wakeUps } = recordingUnitOfWork();
    const seen = await unitOfWork.run(orm.em.fork(), async (tx) => {
      const first = transactionTime(tx);
      const again = transactionTime(tx);
      const nested = await unitOfWork.run(tx, async (inner) => transactionTime(inner));
      return [first, again, nested];
    });
    expect(seen).toEqual([ticks[0], ticks[0], ticks[0]]);
    // A transaction opened without a unit of work takes its time at first use, once.
    const raw = await orm.em.fork().transactional(async (tx) => [transactionTime(tx), transactionTime(tx)]);
    expect(raw).toEqual([ticks[1], ticks[1]]);
    expect(await unitOfWork.run(orm.em.fork(), async (tx) => transactionTime(tx))).toEqual(ticks[2]);
    // The relay's wake-ups (a query each) are over before the database closes.
    await expect.poll(() => wakeUps).toHaveLength(2);
  });
});
