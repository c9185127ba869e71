import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kvm } from "@nats-io/kv";
import { afterAll, describe, expect, it } from "vitest";
import { CacheBudget } from "@imprint/runtime/core";
import { connectNats, connectNatsInBackground, type NatsLink } from "@imprint/runtime/watch";
import { getFreePort, startNatsServer } from "@imprint/runtime/infrastructure";
import { eventually, testLogger, testNatsUrl } from "@imprint/runtime/testing";
import type { GatewayContext } from "../src/context.js";
import { IdempotencyGate } from "../src/middleware/idempotency.js";
import { IDEMPOTENCY_BUCKET, MemoryIdempotencyStore, NatsIdempotencyStore, type IdempotencyRecord, type IdempotencyStore } from "../src/idempotency-store.js";

const running = (bodyHash: string): IdempotencyRecord => ({ state: "running", bodyHash, startedAt: Date.now() });
const done = (bodyHash: string): IdempotencyRecord => ({
  state: "done",
  bodyHash,
  startedAt: Date.now(),
  status: 201,
  headers: { location: "/x" },
  body: { json: '{"id":"x"}' },
});

const stores: IdempotencyStore[] = [];
const links: NatsLink[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const link of links) await link.close();
});

/** A store on the gateway's kind of connection: made in the background, retried until NATS answers. */
function natsStore(url: string, logger = testLogger("gateway")): { store: NatsIdempotencyStore; link: NatsLink } {
  const link = connectNatsInBackground(url, "imprint-gateway", logger);
  links.push(link);
  const store = new NatsIdempotencyStore(link, new MemoryIdempotencyStore(new CacheBudget(1024 * 1024)), logger);
  stores.push(store);
  return { store, link };
}

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
    const { store, link } = natsStore(await testNatsUrl());
    // The first operations may come before the connection: they use the fallback; wait for NATS.
    await expect.poll(() => link.isUp()).toBe(true);
    await behavesAsAStore(store);
  });

  it("are kept in the process while NATS is unreachable, without failing a request", async () => {
    const logger = testLogger("gateway", { level: "warn", record: true });
    const { store } = natsStore(`nats://127.0.0.1:${await getFreePort()}`, logger);
    await behavesAsAStore(store);
    await expect.poll(() => logger.lines.some((line) => /NATS unreachable/.test(String(line.msg)))).toBe(true);
  });

  it("in the process, are bounded by the cache budget (least recently used dropped first)", async () => {
    const store = new MemoryIdempotencyStore(new CacheBudget(200));
    for (let index = 0; index < 20; index++) await store.create(`id${index}`, running(String(index)));
    expect(await store.create("id0", running("again"))).toEqual({ created: true });
    expect(await store.create("id19", running("again"))).toMatchObject({ created: false });
  });

  it("given while NATS was down, reach the bucket once it is back: the bucket never keeps an answered request running", async () => {
    const storeDir = await mkdtemp(join(tmpdir(), "imprint-idempotency-nats-"));
    let server = await startNatsServer({ storeDir });
    const { store, link } = natsStore(server.url);
    try {
      await expect.poll(() => link.isUp()).toBe(true);
      expect(await store.create("answered", running("a"))).toEqual({ created: true });
      await server.stop();
      const answer = done("a");
      await store.put("answered", answer);
      // This replica answers a retry with it meanwhile.
      expect(await store.create("answered", running("a"))).toMatchObject({ created: false, existing: { record: answer } });
      server = await startNatsServer({ storeDir, port: server.port });
      const reader = await connectNats(server.url, "test-reader");
      try {
        const bucket = await new Kvm(reader).open(IDEMPOTENCY_BUCKET);
        await expect.poll(async () => (await bucket.get("answered"))?.json<IdempotencyRecord>().state, { timeout: 20_000, interval: 200 }).toBe("done");
      } finally {
        await reader.close();
      }
    } finally {
      await store.close();
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    }
  });
});

describe("a running request's record", () => {
  /** Just what the gate reads of an answered request. */
  const answered = (status: number, body: unknown) => ({ status, body, response: { get: () => "" } }) as unknown as GatewayContext;

  it("is renewed while the request runs, then holds the answer, which no late renewal overwrites", async () => {
    const store = new MemoryIdempotencyStore(new CacheBudget(1024 * 1024));
    const lease = { abandonedAfterMs: 600, renewEveryMs: 20 };
    const gate = new IdempotencyGate(store, "renewed", testLogger("gateway"), lease);
    expect(await gate.begin(Buffer.from("{}"))).toBeUndefined();
    const firstRenewal = await eventually(async () => {
      const found = await store.create("renewed", running("other"));
      return !found.created && found.existing.record.renewedAt;
    });
    // Renewed again and again: a retry sees a live request however long it runs.
    await eventually(async () => {
      const found = await store.create("renewed", running("other"));
      return !found.created && (found.existing.record.renewedAt ?? 0) > firstRenewal;
    });
    const retry = new IdempotencyGate(store, "renewed", testLogger("gateway"), lease);
    const refused = await retry.begin(Buffer.from("{}"));
    expect(refused).toMatchObject({ status: 409, headers: { "retry-after": "1" } });
    await gate.finish(answered(201, { id: "x" }));
    // Past several renewal periods, the record is still the answer.
    await new Promise((resolve) => setTimeout(resolve, lease.renewEveryMs * 5));
    const kept = await store.create("renewed", running("other"));
    expect(kept).toMatchObject({ created: false, existing: { record: { state: "done", status: 201, body: { json: '{"id":"x"}' } } } });
  });
});
