import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { EventEnvelope } from "@imprint/runtime";
import { eventually } from "@imprint/runtime/testing";

/**
 * Collaboration events about one space that occurred since `since`, straight from JetStream (the
 * relay publishes after commit, so the stream is read from a little earlier and filtered by time).
 */
export async function readCollaborationEvents(nc: NatsConnection, since: Date, spaceId: string): Promise<EventEnvelope[]> {
  const consumer = await jetstream(nc).consumers.get("IMPRINT_COLLABORATION", {
    filter_subjects: "imprint.collaboration.v1.>",
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: new Date(since.getTime() - 5_000).toISOString(),
  });
  const events: EventEnvelope[] = [];
  try {
    const messages = await consumer.fetch({ max_messages: 1000, expires: 1_000 });
    for await (const message of messages) {
      const envelope = message.json<EventEnvelope>();
      if (envelope.payload.spaceId === spaceId && new Date(envelope.occurredAt) >= since) events.push(envelope);
      if (message.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => {});
  }
  return events;
}

/** The space's collaboration events since `since`, once at least `count` of them were published. */
export async function waitForCollaborationEvents(nc: NatsConnection, since: Date, spaceId: string, count: number): Promise<EventEnvelope[]> {
  return eventually(async () => {
    const events = await readCollaborationEvents(nc, since, spaceId);
    return events.length >= count ? events : undefined;
  }, 10_000);
}
