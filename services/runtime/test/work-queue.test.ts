import { defineEntity, p, type MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { findOwned, findOwnedOrNull } from "../src/db/find-owned.js";
import { openDatabase } from "../src/db/orm.js";
import { executeStatement, queryRows, sql, toDate } from "../src/db/sql.js";
import { AppError } from "../src/errors.js";
import { backoffMs, WorkQueue } from "../src/jobs/work-queue.js";
import { createTestDatabase } from "../src/testing/index.js";

/** A table of items the way services keep them: their own state, plus the queue's lease. */
const TaskSchema = defineEntity({
  name: "Task",
  tableName: "tasks",
  properties: {
    id: p.uuid().primary(),
    ownerId: p.uuid(),
    status: p.string().length(16),
    attempt: p.integer().default(0),
    takeovers: p.integer().default(0),
    leaseExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
class Task extends TaskSchema.class {}
TaskSchema.setClass(Task);

let orm: MikroORM;
beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "work_queue");
  orm = await openDatabase({ url, entities: [Task], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
});
afterAll(() => orm?.close(true));
beforeEach(() => executeStatement(orm.em.fork(), sql`delete from tasks`));

const queue = new WorkQueue({ table: "tasks", open: sql`status in ('pending', 'running')`, order: sql`created_at, id` });
const LEASE_MS = 30_000;
const start = Date.parse("2026-05-01T08:00:00.000Z");
const at = (ms: number) => new Date(start + ms);

interface Claimed {
  id: string;
  attempt: number;
  takeovers: number;
}
const claimTerms = (now: Date) => ({
  now,
  leaseMs: LEASE_MS,
  set: sql`status = 'running', attempt = attempt + 1, takeovers = takeovers + (case when status = 'running' then 1 else 0 end)`,
  returning: sql<Claimed>`id, attempt, takeovers`,
});
const holds = (claim: Claimed) => ({ holds: sql`attempt = ${claim.attempt} and status = 'running'` });

async function addTasks(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `00000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`);
  await executeStatement(
    orm.em.fork(),
    sql`insert into tasks (id, owner_id, status, created_at)
        select id, '11111111-1111-4111-8111-111111111111', 'pending', ${at(0)}::timestamptz + (n * interval '1 second')
          from unnest(${ids}::uuid[]) with ordinality as t(id, n)`,
  );
  return ids;
}

const claim = (now: Date, limit = 1) => orm.em.fork().transactional((tx) => queue.claim(tx, { ...claimTerms(now), limit }));

describe("work queue", () => {
  it("claims due items oldest first under a lease, and not again while the lease holds", async () => {
    const ids = await addTasks(3);
    const first = await claim(at(1_000), 2);
    expect(first.map((item) => item.id)).toEqual(ids.slice(0, 2));
    expect(first.every((item) => item.attempt === 1 && item.takeovers === 0)).toBe(true);
    const [row] = await queryRows(orm.em.fork(), sql<{ lease_expires_at: string | Date }>`select lease_expires_at from tasks where id = ${ids[0]}`);
    expect(toDate(row!.lease_expires_at).getTime()).toBe(at(1_000 + LEASE_MS).getTime());

    expect((await claim(at(2_000), 5)).map((item) => item.id)).toEqual([ids[2]]);
    expect(await claim(at(3_000), 5)).toEqual([]);
  });

  it("never hands one item to two claimers claiming at the same time", async () => {
    const ids = await addTasks(40);
    const claimers = Array.from({ length: 8 }, async () => {
      const mine: string[] = [];
      for (;;) {
        const got = await claim(at(1_000), 3);
        if (got.length === 0) return mine;
        mine.push(...got.map((item) => item.id));
      }
    });
    const claimed = (await Promise.all(claimers)).flat();
    expect(claimed).toHaveLength(ids.length);
    expect(new Set(claimed).size).toBe(ids.length);
  });

  it("skips an item another transaction holds locked instead of waiting for it", async () => {
    const ids = await addTasks(2);
    await orm.em.fork().transactional(async (holder) => {
      const mine = await queue.claim(holder, claimTerms(at(1_000)));
      expect(mine.map((item) => item.id)).toEqual([ids[0]]);
      // The first claim has not committed: a second claimer takes the next item at once.
      expect((await claim(at(1_000))).map((item) => item.id)).toEqual([ids[1]]);
    });
  });

  it("lets another worker reclaim an item whose lease ran out; the first worker's claim is then fenced off", async () => {
    const [id] = await addTasks(1);
    const [first] = await claim(at(0));
    expect(await claim(at(LEASE_MS - 1))).toEqual([]);

    const [second] = await claim(at(LEASE_MS));
    expect(second).toEqual({ id, attempt: 2, takeovers: 1 });
    const em = orm.em.fork();
    expect(await queue.renew(em, id, { ...holds(first!), now: at(LEASE_MS), leaseMs: LEASE_MS })).toBe(false);
    expect(await queue.complete(em, id, { ...holds(first!), set: sql`status = 'done'` })).toBe(false);
    expect(await queue.release(em, id, holds(first!))).toBe(false);
    expect(await queue.complete(em, id, { ...holds(second!), set: sql`status = 'done'` })).toBe(true);
    expect(await claim(at(10 * LEASE_MS))).toEqual([]);
  });

  it("keeps a renewed item from other claimers past its first lease", async () => {
    const [id] = await addTasks(1);
    const [mine] = await claim(at(0));
    expect(await queue.renew(orm.em.fork(), id, { ...holds(mine!), now: at(LEASE_MS - 1_000), leaseMs: LEASE_MS })).toBe(true);
    expect(await claim(at(LEASE_MS + 1_000))).toEqual([]);
    expect(await claim(at(2 * LEASE_MS - 1_000))).toHaveLength(1);
  });

  it("releases an item at once, or after a backoff when its work failed", async () => {
    const [id] = await addTasks(1);
    const [mine] = await claim(at(0));
    expect(await queue.release(orm.em.fork(), id, { ...holds(mine!), set: sql`status = 'pending'` })).toBe(true);
    const [again] = await claim(at(1));
    expect(again).toEqual({ id, attempt: 2, takeovers: 0 });

    expect(await queue.release(orm.em.fork(), id, { ...holds(again!), retryAt: at(5_000), set: sql`status = 'pending'` })).toBe(true);
    expect(await claim(at(4_999))).toEqual([]);
    expect(await claim(at(5_000))).toEqual([{ id, attempt: 3, takeovers: 0 }]);
  });

  it("claims one named item only when it is due (work a request starts)", async () => {
    const [id] = await addTasks(1);
    const em = orm.em.fork();
    const first = await queue.claimKey(em, id, claimTerms(at(0)));
    expect(first).toEqual({ id, attempt: 1, takeovers: 0 });
    expect(await queue.claimKey(em, id, claimTerms(at(1_000)))).toBeUndefined();
    expect(await queue.claimKey(em, id, claimTerms(at(LEASE_MS)))).toEqual({ id, attempt: 2, takeovers: 1 });
  });

  it("backs off doubling up to its ceiling", () => {
    for (const [attempt, full] of [
      [1, 1_000],
      [2, 2_000],
      [4, 8_000],
      [20, 60_000],
    ] as const) {
      const wait = backoffMs(attempt, { baseMs: 1_000, maxMs: 60_000 });
      expect(wait).toBeLessThanOrEqual(full);
      expect(wait).toBeGreaterThanOrEqual(full * 0.8);
    }
  });
});

describe("findOwned", () => {
  const owner = "11111111-1111-4111-8111-111111111111";
  it("finds a row of its owner by id, locked when asked, and answers not_found for another owner's, a missing id or one that is no uuid", async () => {
    const [id] = await addTasks(1);
    await orm.em.fork().transactional(async (tx) => {
      const task = await findOwned(tx, Task, { ownerId: owner }, id!, { lock: true });
      expect(task.id).toBe(id);
    });
    const em = orm.em.fork();
    const other = "22222222-2222-4222-8222-222222222222";
    await expect(findOwned(em, Task, { ownerId: other }, id!)).rejects.toEqual(AppError.notFound("Task"));
    await expect(findOwned(em, Task, { ownerId: owner }, other, { name: "Work item" })).rejects.toThrow("Work item not found");
    expect(await findOwnedOrNull(em, Task, { ownerId: owner }, "not-an-id")).toBeNull();
  });
});
