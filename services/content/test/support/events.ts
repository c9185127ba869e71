import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { EventEnvelope } from "@imprint/runtime";
import { eventually } from "@imprint/runtime/testing";

/** Failure probes for calls, shared by every service's tests. */
export { errorCode, failure } from "@imprint/runtime/testing";

/** Content events published since `since` for one organization, straight from JetStream. */
export async function readContentEvents(nc: NatsConnection, since: Date, organizationId: string): Promise<EventEnvelope[]> {
  const consumer = await jetstream(nc).consumers.get("IMPRINT_CONTENT", {
    filter_subjects: "imprint.content.v1.>",
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: since.toISOString(),
  });
  const events: EventEnvelope[] = [];
  try {
    const messages = await consumer.fetch({ max_messages: 1000, expires: 1_000 });
    for await (const message of messages) {
      const envelope = message.json<EventEnvelope>();
      if (envelope.organizationId === organizationId) events.push(envelope);
      if (message.info.pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => {});
  }
  return events;
}

/** Waits until the organization's content events include every type in `types` (in that order). */
export async function waitForContentEvents(nc: NatsConnection, since: Date, organizationId: string, types: string[]): Promise<EventEnvelope[]> {
  return eventually(async () => {
    const events = await readContentEvents(nc, since, organizationId);
    const seen = events.map((event) => event.type);
    let index = 0;
    for (const type of seen) if (type === types[index]) index += 1;
    return index === types.length ? events : undefined;
  }, 10_000);
}
