import { randomBytes, randomUUID } from "node:crypto";
import { defineEntity, p, type MikroORM } from "@mikro-orm/postgresql";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { defineEvent } from "../src/events/definitions.js";
import { ProcessedEvent } from "../src/events/entities.js";
import { DEAD_LETTER_STREAM, deadLetterSubject, streamName } from "../src/events/envelope.js";
import { connectNats, connectNatsInBackground, type NatsConnection } from "../src/events/nats.js";
import { watchEvents } from "../src/events/watch.js";
import { OutboxRelay } from "../src/events/outbox-relay.js";
import { recordEvent } from "../src/events/record-event.js";
import { subscribe, type Subscription } from "../src/events/subscribe.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually, startRestartableNats, startRestartablePostgres, testNats, type RestartablePostgres } from "../src/testing/index.js";
import { scalarMessage } from "./support/messages.js";

// One row per handler run that committed: a duplicate would show as two rows of one event.
const AppliedSchema = defineEntity({
  name: "Applied",
  tableName: "applied",
  properties: { id: p.uuid().primary(), eventId: p.uuid(), index: p.integer() },
});
class Applied extends AppliedSchema.class {}
AppliedSchema.setClass(Applied);

const logLines: string[] = [];
const logger = createLogger("events-outage", { write: (line) => logLines.push(line) });
/** What the old policy gave a failing event before dead-lettering it: 5 attempts, 200 + 1000 + 5000 + 15000 ms apart. */
const OLD_TOTAL_BACKOFF_MS = 21_200;

describe("events through outages", () => {
  let postgres: RestartablePostgres;
  let producerOrm: MikroORM;
  let consumerOrm: MikroORM;
  let nats: NatsConnection;
  let relay: OutboxRelay;
  let subscription: Subscription;

  beforeAll(async () => {
    postgres = await startRestartablePostgres();
    await postgres.createDatabase("consumer");
    consumerOrm = await openDatabase({ url: postgres.urlFor("consumer"), entities: [Applied], migrationsPath: "/nonexistent", runMigrations: false });
    await consumerOrm.schema.create();
    producerOrm = await openDatabase({
      url: await createTestDatabase(inject("pgAdminUrl"), "outage_producer"),
      entities: [],
      migrationsPath: "/nonexistent",
      runMigrations: false,
    });
    await producerOrm.schema.create();
    nats = await testNats();
  });
  afterAll(async () => {
    await subscription?.stop();
    await relay?.stop();
    await consumerOrm?.close(true);
    await producerOrm?.close(true);
    await postgres?.close();
  });

  it("retries every event through an outage longer than the old attempts' total backoff: each applied once, none dead-lettered", async () => {
    const context = `outage${randomBytes(4).toString("hex")}`;
    const consumer = `outage-consumer-${randomBytes(4).toString("hex")}`;
    const widgetCreated = defineEvent({ context, aggregate: "widget", event: "created", message: scalarMessage({ index: 0 }) });
    subscription = await subscribe({
      nats,
      orm: consumerOrm,
      context,
      consumer,
      filterSubject: `imprint.${context}.v1.>`,
      logger,
      backoff: { maxMs: 2_000 },
      handler: async (envelope, { em }) => {
        em.persist(em.create(Applied, { id: randomUUID(), eventId: envelope.id, index: envelope.payload.index as number }));
      },
    });
    relay = new OutboxRelay({ orm: producerOrm, nats, context, logger, pollIntervalMs: 50 });
    relay.start();
    const record = (indexes: number[]) =>
      producerOrm.em
        .fork()
        .transactional(async (em) =>
          indexes.map((index) => recordEvent(em, widgetCreated, { organizationId: `org-${index % 3}`, actor: null, payload: { index } })),
        );

    const before = await record([0, 1, 2]);
    await eventually(async () => (await consumerOrm.em.fork().count(Applied, {})) === before.length);

    await postgres.stop();
    const downAt = Date.now();
    const during = await record([3, 4, 5, 6, 7, 8]);
    // Every event must fail more often than the old limit allowed while the database is away.
    await eventually(async () => subscription.stats.retries >= during.length * 6, OLD_TOTAL_BACKOFF_MS + 10_000);
    const waitLeft = OLD_TOTAL_BACKOFF_MS + 1_000 - (Date.now() - downAt);
    if (waitLeft > 0) await new Promise((resolve) => setTimeout(resolve, waitLeft));
    await postgres.start();

    const all = [...before, ...during];
    await eventually(async () => (await consumerOrm.em.fork().count(Applied, {})) === all.length, 30_000);
    const jsm = await jetstreamManager(nats);
    await eventually(async () => {
      const info = await jsm.consumers.info(streamName(context), consumer);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    }, 30_000);
    const applied = await consumerOrm.em.fork().find(Applied, {});
    expect(applied.map((row) => row.eventId).sort()).toEqual(all.map((event) => event.id).sort());
    expect(await consumerOrm.em.fork().count(ProcessedEvent, { consumer })).toBe(all.length);
    expect(subscription.stats).toMatchObject({ handled: all.length, deadLettered: 0 });
    expect(await jsm.streams.getMessage(DEAD_LETTER_STREAM, { last_by_subj: deadLetterSubject(consumer) }).catch(() => null)).toBeNull();
    expect(logLines.some((line) => line.includes('"event handler failed; will retry"') && line.includes('"nextDelayMs":2000'))).toBe(true);
  });

  it("keeps consuming across a NATS restart, and recreates its consumer when it was deleted on the server", async () => {
    const server = await startRestartableNats();
    const own = await connectNats(server.url, "events-outage");
    const context = `restart${randomBytes(4).toString("hex")}`;
    const consumer = `restart-consumer-${randomBytes(4).toString("hex")}`;
    const widgetCreated = defineEvent({ context, aggregate: "widget", event: "created", message: scalarMessage({ index: 0 }) });
    const seen: number[] = [];
    const restartSubscription = await subscribe({
      nats: own,
      orm: consumerOrm,
      context,
      consumer,
      filterSubject: `imprint.${context}.v1.>`,
      logger,
      handler: async (envelope) => {
        seen.push(envelope.payload.index as number);
      },
    });
    const restartRelay = new OutboxRelay({ orm: producerOrm, nats: own, context, logger, pollIntervalMs: 50 });
    restartRelay.start();
    const record = (index: number) =>
      producerOrm.em.fork().transactional(async (em) => recordEvent(em, widgetCreated, { organizationId: null, actor: null, payload: { index } }));
    try {
      await record(1);
      await eventually(async () => seen.includes(1));

      await server.stop();
      await record(2);
      await server.start();
      await eventually(async () => seen.includes(2), 30_000);

      await (await jetstreamManager(own)).consumers.delete(streamName(context), consumer);
      await record(3);
      await eventually(async () => seen.includes(3), 30_000);
      // The recreated consumer starts from the stream's beginning: the events it had are skipped, not applied again.
      expect(seen.sort()).toEqual([1, 2, 3]);
      expect(logLines.some((line) => line.includes("recreating it"))).toBe(true);
    } finally {
      await restartSubscription.stop();
      await restartRelay.stop();
      await own.close();
      await server.close();
    }
  });

  it("watches events once NATS comes up, and says whether it follows them meanwhile", async () => {
    const server = await startRestartableNats({ started: false });
    const link = connectNatsInBackground(server.url, "events-outage-watch", logger);
    const context = `watch${randomBytes(4).toString("hex")}`;
    const heard: string[] = [];
    let gaps = 0;
    const widgetCreated = defineEvent({ context, aggregate: "widget", event: "created", message: scalarMessage({}) });
    const watch = watchEvents(link, {
      events: [widgetCreated],
      onEvent: (event) => void heard.push(event.id),
      onGap: () => void (gaps += 1),
      logger,
    });
    try {
      expect(watch.following()).toBe(false);
      await server.start();
      await eventually(async () => watch.following(), 15_000);
      // What was kept before the first connect was kept without events.
      expect(gaps).toBe(1);
      const nc = await link.connected;
      const envelope = {
        id: randomUUID(),
        type: "widget.created",
        subject: `imprint.${context}.v1.widget.created`,
        occurredAt: new Date().toISOString(),
        organizationId: null,
        actor: null,
        payload: {},
      };
      nc.publish(envelope.subject, JSON.stringify(envelope));
      await eventually(async () => heard.includes(envelope.id));

      await server.stop();
      await eventually(async () => !watch.following());
      await server.start();
      await eventually(async () => watch.following(), 15_000);
      expect(gaps).toBe(2);
    } finally {
      await watch.stop();
      await link.close();
      await server.close();
    }
  });
});
