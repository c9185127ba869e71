import { DeliverPolicy, jetstream, type OrderedConsumerOptions } from "@nats-io/jetstream";
import { contextSubjects, streamName, type EventEnvelope } from "../events/envelope.js";
import { testNats } from "./nats.js";
import { eventually } from "./support.js";

/** Which of a context's events to read. */
export interface EventQuery {
  /** Read the stream from this time on: events published at or after it. */
  since?: Date;
  /**
   * Only events that occurred at or after this time, by the producer's clock. Without `since`, the
   * stream is read from a little earlier (the relay publishes after the commit, never before).
   */
  occurredSince?: Date;
  /** Only events of this organization. */
  organizationId?: string;
  /** Only events whose payload has these values (top-level fields, e.g. `{ spaceId }`). */
  payload?: Record<string, unknown>;
}

/** How much earlier than `occurredSince` the stream is read when no `since` is given. */
const PUBLISH_MARGIN_MS = 5_000;

function matches(envelope: EventEnvelope, query: EventQuery): boolean {
  if (query.organizationId !== undefined && envelope.organizationId !== query.organizationId) return false;
  if (query.occurredSince && new Date(envelope.occurredAt) < query.occurredSince) return false;
  return Object.entries(query.payload ?? {}).every(([field, value]) => envelope.payload[field] === value);
}

/**
 * A context's events matching `query`, in stream order, straight from its JetStream stream (through
 * an ephemeral consumer of the test's own, so services' durable consumers are untouched). `subject`
 * is the subject each event was published on.
 */
export async function readEvents(context: string, query: EventQuery = {}): Promise<EventEnvelope[]> {
  const start = query.since ?? (query.occurredSince && new Date(query.occurredSince.getTime() - PUBLISH_MARGIN_MS));
  const options: Partial<OrderedConsumerOptions> = start
    ? { filter_subjects: contextSubjects(context), deliver_policy: DeliverPolicy.StartTime, opt_start_time: start.toISOString() }
    : { filter_subjects: contextSubjects(context), deliver_policy: DeliverPolicy.All };
  const consumer = await jetstream(await testNats()).consumers.get(streamName(context), options);
  const events: EventEnvelope[] = [];
  try {
    const messages = await consumer.fetch({ max_messages: 1000, expires: 1_000 });
    for await (const message of messages) {
      const envelope = { ...message.json<EventEnvelope>(), subject: message.subject };
      if (matches(envelope, query)) events.push(envelope);
      if (message.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => {});
  }
  return events;
}

/**
 * Reads the events matching `query` until they include `types` in that order (other events may come
 * between), or number at least `count`; fails after `timeoutMs` (scaled like every wait of the tests).
 */
export async function waitForEvents(
  context: string,
  query: EventQuery,
  until: { types: readonly string[] } | { count: number },
  timeoutMs = 10_000,
): Promise<EventEnvelope[]> {
  return eventually(async () => {
    const events = await readEvents(context, query);
    if ("count" in until) return events.length >= until.count ? events : undefined;
    let found = 0;
    for (const event of events) if (event.type === until.types[found]) found += 1;
    return found === until.types.length ? events : undefined;
  }, timeoutMs);
}
