import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * Outbox row: a domain event written in the same transaction as the change it describes, so an
 * event exists exactly when its change was committed. The relay publishes rows in `sequence` order.
 */
export const OutboxEventSchema = defineEntity({
  name: "OutboxEvent",
  tableName: "outbox_events",
  properties: {
    id: p.uuid().primary(),
    sequence: p.bigint("number").autoincrement().unique(),
    subject: p.string().length(255),
    type: p.string().length(128),
    envelope: p.json<Record<string, unknown>>(),
    /** W3C traceparent/tracestate of the transaction that wrote the event. */
    traceHeaders: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    publishedAt: p.datetime().nullable().index(),
  },
});
export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);

/** Idempotency record: one row per (consumer, event id) the consumer has fully handled. */
export const ProcessedEventSchema = defineEntity({
  name: "ProcessedEvent",
  tableName: "processed_events",
  properties: {
    consumer: p.string().length(128).primary(),
    eventId: p.uuid().primary(),
    // Indexed for the pruning job, which deletes by age.
    processedAt: p
      .datetime()
      .onCreate(() => new Date())
      .index(),
  },
});
export class ProcessedEvent extends ProcessedEventSchema.class {}
ProcessedEventSchema.setClass(ProcessedEvent);
