import { randomBytes, randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { ProcessedEvent } from "../src/events/entities.js";
import { streamName, type EventEnvelope } from "../src/events/envelope.js";
import { connectNats, ensureStream, type NatsConnection } from "../src/events/nats.js";
import { keyByOrganization, keyByPayload, subscribe, type SubscribeOptions, type Subscription } from "../src/events/subscribe.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually } from "../src/testing/index.js";
import { testNatsUrl } from "../src/testing/nats.js";

const logger = createLogger("events-concurrency-test", { level: "error", write: () => {} });
const uniqueName = (prefix: string) => `${prefix}${randomBytes(4).toString("hex")}`;

let orm: MikroORM;
let nats: NatsConnection;
const subscriptions: Subscription[] = [];

beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "events_concurrency");
  orm = await openDatabase({ url, entities: [], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
  nats = await connectNats(await testNatsUrl(), "events-concurrency-test");
});
afterEach(async () => {
  await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
});
afterAll(async () => {
  await nats?.drain();
  await orm?.close(true);
});

/** A fresh context (stream) and a publisher of `note.added` events on it, in publish order. */
async function freshContext() {
  const context = uniqueName("conc");
  await ensureStream(nats, context);
  const js = jetstream(nats);
  const publish = async (organizationId: string | null, payload: Record<string, unknown>) => {
    const envelope: EventEnvelope = {
      id: randomUUID(),
      type: "note.added",
      subject: `imprint.${context}.v1.note.added`,
      occurredAt: new Date().toISOString(),
      organizationId,
      actor: null,
      payload,
    };
    await js.publish(envelope.subject, JSON.stringify(envelope), { msgID: envelope.id });
    return envelope;
  };
  return { context, publish };
}

async function consume(context: string, options: Partial<SubscribeOptions> & Pick<SubscribeOptions, "handler">): Promise<string> {
  const consumer = options.consumer ?? uniqueName("c-");
  subscriptions.push(
    await subscribe({ nats, orm, logger, context, consumer, filterSubject: `imprint.${context}.v1.>`, backoff: { initialMs: 50, maxMs: 50 }, ...options }),
  );
  return consumer;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("concurrent event consumers", () => {
  it("handles other keys while one key's event is slow, and keeps each key's events in order", async () => {
    const { context, publish } = await freshContext();
    const handled: string[] = [];
    let releaseSlow: (() => void) | undefined;
    const slowStarted = new Promise<void>((started) => {
      void consume(context, {
        concurrency: 4,
        keyOf: keyByPayload("spaceId"),
        handler: async (envelope) => {
          const name = `${String(envelope.payload.spaceId)}#${String(envelope.payload.index)}`;
          if (name === "slow#1") {
            started();
            await new Promise<void>((resolve) => (releaseSlow = resolve));
          }
          handled.push(name);
        },
      });
    });
    await publish("org", { spaceId: "slow", index: 1 });
    await slowStarted;
    for (let index = 2; index <= 3; index++) await publish("org", { spaceId: "slow", index });
    for (let index = 1; index <= 5; index++) await publish("org", { spaceId: "fast", index });

    // Same organization, another space: its events go by while the slow one's first is handled.
    await eventually(async () => handled.length === 5);
    expect(handled).toEqual(["fast#1", "fast#2", "fast#3", "fast#4", "fast#5"]);
    await pause(200);
    expect(handled).toHaveLength(5);

    releaseSlow!();
    await eventually(async () => handled.length === 8);
    expect(handled.filter((name) => name.startsWith("slow#"))).toEqual(["slow#1", "slow#2", "slow#3"]);
  });

  it("runs at most `concurrency` handlers at once and never two of one key, acknowledging each event once", async () => {
    const { context, publish } = await freshContext();
    let running = 0;
    let peak = 0;
    const runningKeys = new Set<string>();
    let sameKeyOverlap = false;
    const order = new Map<string, number[]>();
    const consumer = await consume(context, {
      concurrency: 3,
      handler: async (envelope) => {
        const key = keyByOrganization(envelope);
        if (runningKeys.has(key)) sameKeyOverlap = true;
        runningKeys.add(key);
        running += 1;
        peak = Math.max(peak, running);
        await pause(20);
        running -= 1;
        runningKeys.delete(key);
        order.set(key, [...(order.get(key) ?? []), envelope.payload.index as number]);
      },
    });
    const organizations = ["a", "b", "c", "d", "e", "f"];
    for (let index = 0; index < 5; index++) for (const organization of organizations) await publish(organization, { index });

    await eventually(async () => [...order.values()].reduce((sum, indexes) => sum + indexes.length, 0) === 30, 10_000);
    expect(peak).toBe(3);
    expect(sameKeyOverlap).toBe(false);
    for (const organization of organizations) expect(order.get(organization)).toEqual([0, 1, 2, 3, 4]);
    // A handler's event is recorded as processed when its transaction commits, just after it returns.
    await eventually(async () => (await orm.em.fork().count(ProcessedEvent, { consumer })) >= 30);
    expect(await orm.em.fork().count(ProcessedEvent, { consumer })).toBe(30);
    // Every event acknowledged: none left pending.
    await eventually(async () => (await (await jetstreamManager(nats)).consumers.info(streamName(context), consumer)).num_ack_pending === 0);
  });

  it("orders events without the key's field, or without an organization, among themselves", async () => {
    const { context, publish } = await freshContext();
    const handled: number[] = [];
    await consume(context, {
      concurrency: 4,
      keyOf: keyByPayload("spaceId"),
      handler: async (envelope) => {
        // Earlier events take longer: out of order if they ran side by side.
        await pause(40 - 5 * (envelope.payload.index as number));
        handled.push(envelope.payload.index as number);
      },
    });
    for (let index = 0; index < 6; index++) await publish(null, { index });
    await eventually(async () => handled.length === 6);
    expect(handled).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("keeps events waiting behind their key from being redelivered while they wait", async () => {
    const { context, publish } = await freshContext();
    const handled: number[] = [];
    const lines: string[] = [];
    const consumer = await consume(context, {
      concurrency: 2,
      ackWaitMs: 1_000,
      logger: createLogger("events-concurrency-test", { level: "debug", write: (line) => lines.push(line) }),
      // One organization: each event takes well under the ack wait; the last waits three of them.
      handler: async (envelope) => {
        await pause(400);
        handled.push(envelope.payload.index as number);
      },
    });
    for (let index = 0; index < 8; index++) await publish("org", { index });
    await eventually(async () => handled.length === 8, 20_000);
    await pause(300);
    expect(handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // A redelivered copy would have been received and skipped as already processed.
    expect(lines.filter((line) => line.includes("already processed"))).toEqual([]);
    expect(await orm.em.fork().count(ProcessedEvent, { consumer })).toBe(8);
  });

  it("on stop, finishes the events under way and leaves the waiting ones to be redelivered", async () => {
    const { context, publish } = await freshContext();
    const handled: string[] = [];
    let release: (() => void) | undefined;
    const consumer = uniqueName("c-");
    const first = await subscribe({
      nats,
      orm,
      logger,
      context,
      consumer,
      filterSubject: `imprint.${context}.v1.>`,
      ackWaitMs: 1_000,
      handler: async (envelope) => {
        if (envelope.payload.index === 0) await new Promise<void>((resolve) => (release = resolve));
        handled.push(`first:${String(envelope.payload.index)}`);
      },
    });
    for (let index = 0; index < 3; index++) await publish("org", { index });
    await eventually(async () => release);
    const stopped = first.stop();
    release!();
    await stopped;
    expect(handled).toEqual(["first:0"]);

    await consume(context, { consumer, ackWaitMs: 1_000, handler: async (envelope) => void handled.push(`second:${String(envelope.payload.index)}`) });
    await eventually(async () => handled.length === 3, 20_000);
    expect(handled).toEqual(["first:0", "second:1", "second:2"]);
  });

  it("refuses a concurrency below one", async () => {
    const { context } = await freshContext();
    await expect(consume(context, { concurrency: 0, handler: async () => {} })).rejects.toThrow(/concurrency/);
  });
});
