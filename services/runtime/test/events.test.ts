import { randomBytes, randomUUID } from "node:crypto";
import { defineEntity, p, type MikroORM } from "@mikro-orm/postgresql";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { defineEvent, PoisonEventError } from "../src/events/definitions.js";
import { OutboxEvent, ProcessedEvent } from "../src/events/entities.js";
import { DEAD_LETTER_STREAM, deadLetterSubject, streamName, type EventEnvelope } from "../src/events/envelope.js";
import { connectNats, ensureStream, type NatsConnection } from "../src/events/nats.js";
import { OutboxRelay } from "../src/events/outbox-relay.js";
import { handleEvents } from "../src/events/handle-events.js";
import { recordEvent } from "../src/events/record-event.js";
import { subscribe, type SubscribeOptions, type Subscription } from "../src/events/subscribe.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually } from "../src/testing/index.js";
import { testNatsUrl } from "../src/testing/nats.js";
import { scalarMessage } from "./support/messages.js";

// Producer side: something the use case changes together with its event.
const WidgetSchema = defineEntity({
  name: "Widget",
  tableName: "widgets",
  properties: { id: p.uuid().primary(), name: p.string() },
});
class Widget extends WidgetSchema.class {}
WidgetSchema.setClass(Widget);

// Consumer side: one row per handler run that committed, so a duplicate would show as two rows.
const HandledEventSchema = defineEntity({
  name: "HandledEvent",
  tableName: "handled_events",
  properties: {
    id: p.uuid().primary(),
    consumer: p.string(),
    eventId: p.uuid(),
    attempt: p.integer(),
  },
});
class HandledEvent extends HandledEventSchema.class {}
HandledEventSchema.setClass(HandledEvent);

const logLines: string[] = [];
const logger = createLogger("events-test", { level: "debug", write: (line) => logLines.push(line) });
const uniqueName = (prefix: string) => `${prefix}${randomBytes(4).toString("hex")}`;
const WidgetCreated = scalarMessage({ index: 0 });
const widgetCreated = (context: string) => defineEvent({ context, aggregate: "widget", event: "created", message: WidgetCreated });

async function openTestOrm(prefix: string, entities: NonNullable<Parameters<typeof openDatabase>[0]["entities"]>): Promise<MikroORM> {
  const url = await createTestDatabase(inject("pgAdminUrl"), prefix);
  const orm = await openDatabase({ url, entities, migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
  return orm;
}

describe("outbox, relay and idempotent consumers", () => {
  let producerOrm: MikroORM;
  let consumerOrm: MikroORM;
  let nats: NatsConnection;
  let jsm: JetStreamManager;
  const relays: OutboxRelay[] = [];
  const subscriptions: Subscription[] = [];

  /** Subscribes `consumer` to the events of `context` on the test's connection and database. */
  function subscribeTestConsumer(
    context: string,
    consumer: string,
    options: Omit<SubscribeOptions, "nats" | "orm" | "context" | "consumer" | "logger" | "filterSubject"> & { filterSubject?: string },
  ): Promise<Subscription> {
    return subscribe({ nats, orm: consumerOrm, context, consumer, filterSubject: `imprint.${context}.v1.>`, logger, ...options });
  }

  beforeAll(async () => {
    [producerOrm, consumerOrm] = await Promise.all([openTestOrm("events_producer", [Widget]), openTestOrm("events_consumer", [HandledEvent])]);
    nats = await connectNats(await testNatsUrl(), "events-test");
    jsm = await jetstreamManager(nats);
  });
  afterAll(async () => {
    if (process.env.DEBUG_EVENTS) console.log(logLines.join("\n"));
    for (const subscription of subscriptions) await subscription.stop();
    for (const relay of relays) await relay.stop();
    await nats?.drain();
    await producerOrm?.close(true);
    await consumerOrm?.close(true);
  });

  function startRelay(context: string, options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
    const relay = new OutboxRelay({ orm: producerOrm, nats, context, logger, pollIntervalMs: 50, ...options });
    relays.push(relay);
    return relay;
  }

  /** Records `count` events of one context in one committed transaction, with a widget. */
  async function commitEvents(context: string, count: number): Promise<EventEnvelope[]> {
    const definition = widgetCreated(context);
    return producerOrm.em.fork().transactional(async (em) => {
      em.persist(em.create(Widget, { id: randomUUID(), name: "w" }));
      return Array.from({ length: count }, (_, index) =>
        recordEvent(em, definition, { organizationId: "org-1", actor: { userId: "user-1" }, payload: { index } }),
      );
    });
  }

  async function handledRows(consumer: string): Promise<HandledEvent[]> {
    return consumerOrm.em.fork().find(HandledEvent, { consumer }, { orderBy: { attempt: "asc" } });
  }

  /** The last dead letter of `consumer`, or undefined. */
  async function deadLetterOf(consumer: string): Promise<Record<string, unknown> | undefined> {
    try {
      return (await jsm.streams.getMessage(DEAD_LETTER_STREAM, { last_by_subj: deadLetterSubject(consumer) }))?.json<Record<string, unknown>>();
    } catch {
      return undefined;
    }
  }

  async function consumerSettled(context: string, consumer: string, delivered: number): Promise<boolean> {
    const info = await jsm.consumers.info(streamName(context), consumer);
    return info.delivered.stream_seq >= delivered && info.num_pending === 0 && info.num_ack_pending === 0;
  }

  it("creates the context stream with dedup window and the dead-letter stream, idempotently", async () => {
    const context = uniqueName("s");
    await ensureStream(nats, context);
    await ensureStream(nats, context);
    const info = await jsm.streams.info(streamName(context));
    expect(info.config.subjects).toEqual([`imprint.${context}.v1.>`]);
    expect(info.config.duplicate_window).toBe(120 * 1e9);
    expect(info.config.storage).toBe("file");
    expect((await jsm.streams.info(DEAD_LETTER_STREAM)).config.subjects).toEqual(["imprint.dlq.>"]);
  });

  it("sets the stream's age and size limits; a process that gives none (a consumer of the stream) leaves them", async () => {
    const context = uniqueName("limits");
    await ensureStream(nats, context);
    expect((await jsm.streams.info(streamName(context))).config).toMatchObject({ max_age: 0, max_bytes: -1 });
    await ensureStream(nats, context, { maxAgeMs: 7 * 24 * 3_600_000, maxBytes: 64 * 1024 * 1024 });
    await ensureStream(nats, context, { replicas: 1 });
    expect((await jsm.streams.info(streamName(context))).config).toMatchObject({ max_age: 7 * 24 * 3_600 * 1e9, max_bytes: 64 * 1024 * 1024 });
    // 0 lifts a limit.
    await ensureStream(nats, context, { maxAgeMs: 0, maxBytes: 0 });
    expect((await jsm.streams.info(streamName(context))).config).toMatchObject({ max_age: 0, max_bytes: -1 });
  });

  it("publishes committed events in sequence order with Nats-Msg-Id = event id, and nothing from a rolled back transaction", async () => {
    const context = uniqueName("order");
    await ensureStream(nats, context);
    const committed = await commitEvents(context, 5);
    const rolledBack: EventEnvelope[] = [];
    await expect(
      producerOrm.em.fork().transactional(async (em) => {
        em.persist(em.create(Widget, { id: randomUUID(), name: "doomed" }));
        rolledBack.push(recordEvent(em, widgetCreated(context), { organizationId: null, actor: null, payload: { index: 0 } }));
        await em.flush();
        throw new Error("use case failed after flushing");
      }),
    ).rejects.toThrow("use case failed");
    expect(await producerOrm.em.fork().count(OutboxEvent, { id: rolledBack[0]!.id })).toBe(0);

    const relay = startRelay(context);
    relay.notify();
    await relay.idle();
    relay.start();
    const stream = streamName(context);
    await eventually(async () => (await jsm.streams.info(stream)).state.messages === 5);
    // Another poll round must not add the rolled back event or anything else.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await jsm.streams.info(stream)).state.messages).toBe(5);

    for (const [index, event] of committed.entries()) {
      const stored = await jsm.streams.getMessage(stream, { seq: index + 1 });
      expect(stored?.header.get("Nats-Msg-Id")).toBe(event.id);
      expect(stored?.subject).toBe(`imprint.${context}.v1.widget.created`);
      expect(stored?.json<EventEnvelope>()).toEqual(event);
    }
    const rows = await producerOrm.em.fork().find(OutboxEvent, { id: { $in: committed.map((e) => e.id) } });
    expect(rows.every((row) => row.publishedAt instanceof Date)).toBe(true);
    expect(relay.stats).toMatchObject({ published: 5, duplicates: 0 });
  });

  it("keeps events in the outbox while NATS is unreachable, without throwing, and publishes them later", async () => {
    const context = uniqueName("down");
    await ensureStream(nats, context);
    const events = await commitEvents(context, 2);
    const closed = await connectNats(await testNatsUrl(), "events-test-closed");
    await closed.close();
    const broken = new OutboxRelay({ orm: producerOrm, nats: closed, context, logger, publishTimeoutMs: 500 });
    broken.notify();
    await broken.idle();
    broken.notify();
    await broken.idle();
    await broken.stop();
    expect(broken.stats).toMatchObject({ published: 0, failures: 3 });
    expect(logLines.some((line) => line.includes("outbox relay round failed"))).toBe(true);
    expect(await producerOrm.em.fork().count(OutboxEvent, { id: { $in: events.map((e) => e.id) }, publishedAt: null })).toBe(2);

    const healthy = startRelay(context);
    healthy.notify();
    await healthy.idle();
    expect(healthy.stats).toMatchObject({ published: 2, failures: 0 });
  });

  it("deletes published rows once they are older than the retention", async () => {
    const context = uniqueName("old");
    await ensureStream(nats, context);
    const events = await commitEvents(context, 1);
    const relay = startRelay(context);
    relay.notify();
    await relay.idle();
    const ids = { id: { $in: events.map((e) => e.id) } };
    expect(await producerOrm.em.fork().count(OutboxEvent, ids)).toBe(1);

    const eightDaysLater = new Date(Date.now() + 8 * 24 * 3600 * 1000);
    const later = startRelay(context, { clock: () => eightDaysLater });
    const sixDaysLater = new Date(Date.now() + 6 * 24 * 3600 * 1000);
    const sooner = startRelay(context, { clock: () => sixDaysLater });
    sooner.notify();
    await sooner.idle();
    expect(await producerOrm.em.fork().count(OutboxEvent, ids)).toBe(1);
    later.notify();
    await later.idle();
    expect(await producerOrm.em.fork().count(OutboxEvent, ids)).toBe(0);
  });

  it("handles every event exactly once when a relay crashes after publishing and before marking", async () => {
    const context = uniqueName("crash");
    const consumer = uniqueName("crash-consumer-");
    await ensureStream(nats, context);
    const events = await commitEvents(context, 10);

    // First relay: JetStream acknowledges its first batch, then it "crashes" before the rows are
    // marked published. It is never started, so nothing else runs on it.
    const crashing = startRelay(context, {
      batchSize: 4,
      beforeMarkPublished: () => {
        throw new Error("simulated crash");
      },
    });
    crashing.notify();
    await crashing.idle();
    expect(crashing.stats).toMatchObject({ published: 4, duplicates: 0, failures: 1 });
    expect(await producerOrm.em.fork().count(OutboxEvent, { id: { $in: events.map((e) => e.id) }, publishedAt: null })).toBe(10);

    subscriptions.push(
      await subscribeTestConsumer(context, consumer, {
        filterSubject: `imprint.${context}.v1.widget.>`,
        handler: async (envelope, { em, attempt }) => {
          em.persist(em.create(HandledEvent, { id: randomUUID(), consumer, eventId: envelope.id, attempt }));
        },
      }),
    );

    const replacement = startRelay(context, { batchSize: 4 });
    replacement.start();
    await eventually(async () => (await producerOrm.em.fork().count(OutboxEvent, { id: { $in: events.map((e) => e.id) }, publishedAt: null })) === 0);
    // JetStream dropped the republished copies by their Nats-Msg-Id.
    expect(replacement.stats).toMatchObject({ published: 6, duplicates: 4 });
    expect((await jsm.streams.info(streamName(context))).state.messages).toBe(10);

    await eventually(() => consumerSettled(context, consumer, 10));
    const handled = await handledRows(consumer);
    expect(handled.map((row) => row.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    expect(await consumerOrm.em.fork().count(ProcessedEvent, { consumer })).toBe(10);
  });

  it("handles the same envelope once even when it arrives twice under different message ids", async () => {
    const context = uniqueName("dup");
    const consumer = uniqueName("dup-consumer-");
    const seen: string[] = [];
    subscriptions.push(
      await subscribeTestConsumer(context, consumer, {
        handler: async (envelope, { em, attempt }) => {
          seen.push(envelope.id);
          em.persist(em.create(HandledEvent, { id: randomUUID(), consumer, eventId: envelope.id, attempt }));
        },
      }),
    );
    const envelope: EventEnvelope = {
      id: randomUUID(),
      type: "widget.created",
      subject: `imprint.${context}.v1.widget.created`,
      occurredAt: new Date().toISOString(),
      organizationId: "org-1",
      actor: null,
      payload: { name: "w" },
    };
    const js = jetstream(nats);
    const first = await js.publish(envelope.subject, JSON.stringify(envelope), { msgID: "copy-1" });
    const second = await js.publish(envelope.subject, JSON.stringify(envelope), { msgID: "copy-2" });
    expect([first.duplicate, second.duplicate]).toEqual([false, false]);

    await eventually(() => consumerSettled(context, consumer, 2));
    expect(seen).toEqual([envelope.id]);
    expect(await handledRows(consumer)).toHaveLength(1);
  });

  it("retries a failing handler with backoff, rolling back each failed attempt, then succeeds", async () => {
    const context = uniqueName("retry");
    const consumer = uniqueName("retry-consumer-");
    const attempts: { attempt: number; at: number }[] = [];
    subscriptions.push(
      await subscribeTestConsumer(context, consumer, {
        backoff: { initialMs: 300, maxMs: 600 },
        handler: async (envelope, { em, attempt }) => {
          attempts.push({ attempt, at: Date.now() });
          // Written before the failure: must vanish with the rolled back transaction.
          em.persist(em.create(HandledEvent, { id: randomUUID(), consumer, eventId: envelope.id, attempt }));
          await em.flush();
          if (attempt < 3) throw new Error(`transient failure ${attempt}`);
        },
      }),
    );
    const relay = startRelay(context);
    const [event] = await commitEvents(context, 1);
    relay.notify();

    await eventually(async () => (await handledRows(consumer)).length === 1, 10_000);
    await eventually(() => consumerSettled(context, consumer, 1));
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(250);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(550);
    const [row] = await handledRows(consumer);
    expect(row).toMatchObject({ eventId: event!.id, attempt: 3 });
  });

  it("retries a transient failure without limit: 20 failures, then applied exactly once, nothing dead-lettered", async () => {
    const context = uniqueName("transient");
    const consumer = uniqueName("transient-consumer-");
    let calls = 0;
    const subscription = await subscribeTestConsumer(context, consumer, {
      backoff: { initialMs: 20, maxMs: 40 },
      handler: async (envelope, { em, attempt }) => {
        calls += 1;
        em.persist(em.create(HandledEvent, { id: randomUUID(), consumer, eventId: envelope.id, attempt }));
        await em.flush();
        if (attempt <= 20) throw new Error(`database unavailable (${attempt})`);
      },
    });
    subscriptions.push(subscription);
    const relay = startRelay(context);
    const [event] = await commitEvents(context, 1);
    relay.notify();

    await eventually(async () => (await handledRows(consumer)).length === 1, 20_000);
    await eventually(() => consumerSettled(context, consumer, 1));
    expect(calls).toBe(21);
    expect(await handledRows(consumer)).toMatchObject([{ eventId: event!.id, attempt: 21 }]);
    expect(subscription.stats).toEqual({ handled: 1, skipped: 0, retries: 20, deadLettered: 0 });
    expect(await deadLetterOf(consumer)).toBeUndefined();
    const retryLog = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.consumer === consumer && line.msg === "event handler failed; will retry" && line.attempt === 20);
    expect(retryLog).toMatchObject({ level: "warn", eventId: event!.id, nextDelayMs: 40 });
  });

  it("sends a poison event (PoisonEventError) to imprint.dlq.<consumer> at once, with the error", async () => {
    const context = uniqueName("dlq");
    const consumer = uniqueName("dlq-consumer-");
    let calls = 0;
    const subscription = await subscribeTestConsumer(context, consumer, {
      handler: async () => {
        calls += 1;
        throw new PoisonEventError("widget name is not valid");
      },
    });
    subscriptions.push(subscription);
    const relay = startRelay(context);
    const [event] = await commitEvents(context, 1);
    relay.notify();

    const dead = await eventually(() => deadLetterOf(consumer));
    expect(dead).toMatchObject({
      envelope: event,
      error: "widget name is not valid",
      consumer,
      subject: event!.subject,
      stream: streamName(context),
      streamSequence: 1,
      attempts: 1,
      failedAt: expect.any(String),
    });
    await eventually(() => consumerSettled(context, consumer, 1));
    expect(calls).toBe(1);
    expect(subscription.stats).toMatchObject({ handled: 0, retries: 0, deadLettered: 1 });
    expect(await consumerOrm.em.fork().count(ProcessedEvent, { consumer })).toBe(0);
  });

  it("sends a malformed message to the dead-letter stream without calling the handler", async () => {
    const context = uniqueName("bad");
    const consumer = uniqueName("bad-consumer-");
    let calls = 0;
    subscriptions.push(
      await subscribeTestConsumer(context, consumer, {
        handler: async () => {
          calls += 1;
        },
      }),
    );
    await jetstream(nats).publish(`imprint.${context}.v1.widget.created`, "{not json");
    const dead = await eventually(async () => {
      try {
        return await jsm.streams.getMessage(DEAD_LETTER_STREAM, { last_by_subj: deadLetterSubject(consumer) });
      } catch {
        return undefined;
      }
    });
    expect(dead?.json()).toMatchObject({ envelope: null, raw: "{not json", error: "message body is not valid JSON", consumer });
    await eventually(() => consumerSettled(context, consumer, 1));
    expect(calls).toBe(0);
  });

  it("sends a payload that does not decode to the dead-letter stream at once; a typed handler gets the others decoded", async () => {
    const context = uniqueName("typed");
    const consumer = uniqueName("typed-consumer-");
    const handled: { type: string; index: number }[] = [];
    subscriptions.push(
      await subscribeTestConsumer(context, consumer, {
        handler: handleEvents([widgetCreated(context)], async (event) => {
          handled.push({ type: event.type, index: event.payload.index });
        }),
      }),
    );
    const js = jetstream(nats);
    const publish = async (type: string, payload: Record<string, unknown>) => {
      const envelope = {
        id: randomUUID(),
        type,
        subject: `imprint.${context}.v1.${type}`,
        occurredAt: new Date().toISOString(),
        organizationId: null,
        actor: null,
        payload,
      };
      await js.publish(envelope.subject, JSON.stringify(envelope), { msgID: envelope.id });
      return envelope;
    };
    const wrong = await publish("widget.created", { index: "three" });
    await publish("widget.renamed", { index: "not a widget.created: skipped" });
    await publish("widget.created", { index: 3, addedLater: true });

    const dead = await eventually(async () => {
      try {
        return await jsm.streams.getMessage(DEAD_LETTER_STREAM, { last_by_subj: deadLetterSubject(consumer) });
      } catch {
        return undefined;
      }
    });
    expect(dead?.json()).toMatchObject({ envelope: wrong, error: "widget.created: payload.index must be a number", consumer, attempts: 1 });
    await eventually(() => consumerSettled(context, consumer, 3));
    expect(handled).toEqual([{ type: "widget.created", index: 3 }]);
    expect(await consumerOrm.em.fork().count(ProcessedEvent, { consumer })).toBe(2);
  });

  it("rejects event and consumer names that would break subjects", async () => {
    expect(() => defineEvent({ context: "identity", aggregate: "member.x", event: "added", message: WidgetCreated })).toThrow(/aggregate "member.x"/);
    await expect(
      subscribe({ nats, orm: consumerOrm, context: "identity", consumer: "a.b", filterSubject: "imprint.identity.v1.>", logger, handler: async () => {} }),
    ).rejects.toThrow(/consumer "a.b"/);
  });
});
