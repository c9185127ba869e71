import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { injectTraceHeaders } from "../telemetry/propagation.js";
import { OutboxEvent } from "./entities.js";
import { eventSubject, type Actor, type EventEnvelope } from "./envelope.js";

export interface RecordEventInput {
  /** Bounded context that owns the aggregate, e.g. "identity". */
  context: string;
  /** e.g. "member". */
  aggregate: string;
  /** Past tense, e.g. "added". */
  event: string;
  organizationId: string | null;
  actor: Actor | null;
  payload: Record<string, unknown>;
  occurredAt?: Date;
}

/**
 * Adds a domain event to the outbox of the unit of work. Only `persist`: the caller flushes inside
 * its own transaction, so the event exists exactly when the change it describes is committed.
 * The active trace context is kept with the row, so consumers continue the caller's trace.
 */
export function recordEvent(em: EntityManager, input: RecordEventInput): EventEnvelope {
  const envelope: EventEnvelope = {
    id: randomUUID(),
    type: `${input.aggregate}.${input.event}`,
    subject: eventSubject(input.context, input.aggregate, input.event),
    occurredAt: (input.occurredAt ?? new Date()).toISOString(),
    organizationId: input.organizationId,
    actor: input.actor ? { userId: input.actor.userId, ...(input.actor.tokenId ? { tokenId: input.actor.tokenId } : {}) } : null,
    payload: input.payload,
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
