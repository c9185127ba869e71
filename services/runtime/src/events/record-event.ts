import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { transactionTime } from "../db/unit-of-work.js";
import { injectTraceHeaders } from "../telemetry/propagation.js";
import { encodePayload, type EventDefinition, type EventPayload } from "./definitions.js";
import { OutboxEvent } from "./entities.js";
import type { Actor, EventEnvelope } from "./envelope.js";

export interface RecordEventInput<T> {
  organizationId: string | null;
  actor: Actor | null;
  /** The event's message (see EventPayload for null). */
  payload: NoInfer<EventPayload<T>>;
}

/**
 * Adds a domain event to the outbox of the unit of work. Only `persist`: the caller flushes inside
 * its own transaction, so the event exists exactly when the change it describes is committed.
 * The payload is written once, here, as the definition's message (encodePayload). The event
 * occurred at the transaction's time (the unit of work's clock, one time per transaction: see
 * transactionTime). The active trace context is kept with the row, so consumers continue the
 * caller's trace.
 */
export function recordEvent<T>(em: EntityManager, definition: EventDefinition<T>, input: RecordEventInput<T>): EventEnvelope {
  const envelope: EventEnvelope = {
    id: randomUUID(),
    type: definition.type,
    subject: definition.subject,
    occurredAt: transactionTime(em).toISOString(),
    organizationId: input.organizationId,
    actor: input.actor ? { userId: input.actor.userId, ...(input.actor.tokenId ? { tokenId: input.actor.tokenId } : {}) } : null,
    payload: encodePayload(definition, input.payload),
  };
  const traceHeaders = injectTraceHeaders();
  em.persist(
    em.create(OutboxEvent, {
      id: envelope.id,
      subject: envelope.subject,
      type: envelope.type,
      envelope: envelope as unknown as Record<string, unknown>,
      traceHeaders: Object.keys(traceHeaders).length > 0 ? traceHeaders : null,
    }),
  );
  return envelope;
}
