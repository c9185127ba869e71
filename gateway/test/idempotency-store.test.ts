import { afterAll, describe, expect, it } from "vitest";
import { CacheBudget } from "@imprint/runtime/core";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { testLogger, testNatsUrl } from "@imprint/runtime/testing";
import { MemoryIdempotencyStore, NatsIdempotencyStore, type IdempotencyRecord, type IdempotencyStore } from "../src/idempotency-store.js";

const running = (bodyHash: string): IdempotencyRecord => ({ state: "running", bodyHash, startedAt: Date.now() });
const done = (bodyHash: string): IdempotencyRecord => ({ state: "done", bodyHash, startedAt: Date.now(), status: 201, headers: { location: "/x" }, body: { json: '{"id":"x"}' } });

const stores: IdempotencyStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

/** The store's contract, whichever keeps the records. */
async function behavesAsAStore(store: IdempotencyStore): Promise<void> {
  const id = `id${Math.random().toString(16).slice(2)}`;
  expect(await store.create(id, running("a"))).toEqual({ created: true });
  const second = await store.create(id, running("b"));
  expect(second).toMatchObject({ created: false, existing: { record: { state: "running", bodyHash: "a" } } });
  const revision = second.created ? 0 : second.existing.revision;
  expect(await store.replace(id, running("c"), revision)).toBe(true);
  expect(await store.replace(id, running("d"), revision)).toBe(false);
  const answer = done("c");
  await store.put(id, answer);
  expect(await store.create(id, running("e"))).toMatchObject({ created: false, existing: { record: answer } });
  await store.delete(id);
  expect(await store.create(id, running("f"))).toEqual({ created: true });
}

describe("idempotency records", () => {
  it("are kept in NATS's bucket", async () => {
    const store = new NatsIdempotencyStore(await testNatsUrl(), new MemoryIdempotencyStore(new CacheBudget(1024 * 1024)), testLogger("gateway"));
    stores.push(store);
    // The first operations may come before the connection: they use the fallback; wait for NATS.
    await expect.poll(() => (store as unknown as { nats?: unknown }).nats !== undefined).toBe(true);
    await behavesAsAStore(store);
  });

  it("are kept in the process while NATS is unreachable, without failing a request", async () => {
    const logger = testLogger("gateway", { level: "warn", record: true });
    const store = new NatsIdempotencyStore(`nats://127.0.0.1:${await getFreePort()}`, new MemoryIdempotencyStore(new CacheBudget(1024 * 1024)), logger);
    stores.push(store);
    await behavesAsAStore(store);
    await expect.poll(() => logger.lines.some((line) => /NATS unreachable/.test(String(line.msg)))).toBe(true);
  });

  it("in the process, are bounded by the cache budget (least recently used dropped first)", async () => {
    const store = new MemoryIdempotencyStore(new CacheBudget(200));
    for (let index = 0; index < 20; index++) await store.create(`id${index}`, running(String(index)));
    expect(await store.create("id0", running("again"))).toEqual({ created: true });
    expect(await store.create("id19", running("again"))).toMatchObject({ created: false });
  });
});
