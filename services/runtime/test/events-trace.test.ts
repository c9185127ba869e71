import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { context, propagation, trace, type SpanContext } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { defineEvent } from "../src/events/definitions.js";
import { streamName, type EventEnvelope } from "../src/events/envelope.js";
import { connectNats, type NatsConnection } from "../src/events/nats.js";
import { OutboxEvent } from "../src/events/entities.js";
import { OutboxRelay } from "../src/events/outbox-relay.js";
import { recordEvent } from "../src/events/record-event.js";
import { subscribe, type Subscription } from "../src/events/subscribe.js";
import { createLogger } from "../src/logger.js";
import { injectTraceHeaders, withExtractedContext } from "../src/telemetry/propagation.js";
import { createTestDatabase, eventually } from "../src/testing/index.js";
import { testNatsUrl } from "../src/testing/nats.js";
import { scalarMessage } from "./support/messages.js";

// A real SDK tracer provider in this worker, exporting to memory, stands in for the preload.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager().enable();

describe("trace context across the outbox and NATS", () => {
  let orm: MikroORM;
  let nats: NatsConnection;
  let relay: OutboxRelay;
  let subscription: Subscription | undefined;
  const logLines: string[] = [];
  const logger = createLogger("trace-test", { write: (line) => logLines.push(line) });

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
    const url = await createTestDatabase(inject("pgAdminUrl"), "events_trace");
    orm = await openDatabase({ url, entities: [], migrationsPath: "/nonexistent", runMigrations: false });
    await orm.schema.create();
    nats = await connectNats(await testNatsUrl(), "events-trace-test");
  });
  afterAll(async () => {
    await subscription?.stop();
    await relay?.stop();
    await nats?.drain();
    await orm?.close(true);
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("injects and extracts W3C trace headers", async () => {
    const tracer = trace.getTracer("test");
    expect(injectTraceHeaders()).toEqual({});
    await tracer.startActiveSpan("outer", async (span) => {
      const headers = injectTraceHeaders();
      expect(headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      span.end();
      await context.with(context.active(), async () => {
        const seen = await withExtractedContext(headers, async () => trace.getSpanContext(context.active()));
        expect(seen).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, isRemote: true });
      });
    });
  });

  it("makes the span active at recordEvent the parent of the consumer handler's span", async () => {
    const ctx = `trace${randomBytes(4).toString("hex")}`;
    const consumer = `trace-consumer-${randomBytes(4).toString("hex")}`;
    let handlerSpan: SpanContext | undefined;
    let handlerLog: Record<string, unknown> | undefined;
    subscription = await subscribe({
      nats,
      orm,
      context: ctx,
      consumer,
      filterSubject: `imprint.${ctx}.v1.>`,
      logger,
      handler: async (_envelope, { logger: handlerLogger }) => {
        handlerSpan = trace.getActiveSpan()?.spanContext();
        handlerLogger.info("handled");
        handlerLog = JSON.parse(logLines.at(-1)!) as Record<string, unknown>;
      },
    });
    relay = new OutboxRelay({ orm, nats, context: ctx, logger, pollIntervalMs: 50 });

    const tracer = trace.getTracer("test");
    let useCaseSpan: SpanContext | undefined;
    let envelope: EventEnvelope | undefined;
    await tracer.startActiveSpan("use case", async (span) => {
      useCaseSpan = span.spanContext();
      await orm.em.fork().transactional(async (em) => {
        const spaceRenamed = defineEvent({ context: ctx, aggregate: "space", event: "renamed", message: scalarMessage({}) });
        envelope = recordEvent(em, spaceRenamed, { organizationId: "o", actor: null, payload: {} });
      });
      span.end();
    });
    // The relay runs outside any span: the stored headers, not the relay's context, carry the trace.
    context.with(trace.deleteSpan(context.active()), () => relay.start());

    const row = await orm.em.fork().findOneOrFail(OutboxEvent, { id: envelope!.id });
    expect(row.traceHeaders?.traceparent).toBe(`00-${useCaseSpan!.traceId}-${useCaseSpan!.spanId}-01`);

    await eventually(async () => handlerSpan);
    const jsm = await jetstreamManager(nats);
    const stored = await jsm.streams.getMessage(streamName(ctx), { seq: 1 });
    expect(stored?.header.get("traceparent")).toBe(row.traceHeaders?.traceparent);

    expect(handlerSpan!.traceId).toBe(useCaseSpan!.traceId);
    const finished = await eventually(async () => exporter.getFinishedSpans().find((span) => span.spanContext().spanId === handlerSpan!.spanId));
    expect(finished.name).toBe(`process imprint.${ctx}.v1.space.renamed`);
    expect(finished.parentSpanContext?.spanId).toBe(useCaseSpan!.spanId);
    expect(finished.attributes["messaging.message.id"]).toBe(envelope!.id);
    expect(handlerLog).toMatchObject({ trace_id: useCaseSpan!.traceId, span_id: handlerSpan!.spanId, consumer, eventId: envelope!.id });
  });
});
