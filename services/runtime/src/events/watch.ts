import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../logger.js";
import { contextSubjects, parseEnvelope, type EventEnvelope } from "./envelope.js";

export interface EventWatch {
  stop(): Promise<void>;
}

export interface WatchEventsOptions {
  /** The producers' contexts, e.g. ["content", "publishing"]. */
  contexts: readonly string[];
  /** Called for each event as it is published (its subject names the aggregate and event). */
  onEvent(envelope: EventEnvelope, subject: string): void;
  /**
   * Called after every reconnect: events published while disconnected were not seen, so whatever
   * was derived from them must be dropped.
   */
  onGap(): void;
  logger: Logger;
}

/**
 * Follows the events of some contexts as they are published, with a plain NATS subscription on
 * their subjects: no consumer, no acknowledgement, nothing replayed. This is for caches of a process
 * without a database (the reader), which only need to hear that something changed, soon; work
 * that must happen once per event uses `subscribe` (durable and idempotent) instead.
 */
export function watchEvents(nc: NatsConnection, options: WatchEventsOptions): EventWatch {
  const subscriptions = options.contexts.map((context) =>
    nc.subscribe(contextSubjects(context), {
      callback: (error, message) => {
        if (error) {
          options.logger.warn("event watch failed", { error: error.message });
          options.onGap();
          return;
        }
        const parsed = parseEnvelope(message.data);
        if ("problem" in parsed) {
          options.logger.warn("unreadable event ignored", { subject: message.subject, problem: parsed.problem });
          return;
        }
        options.onEvent(parsed.envelope, message.subject);
      },
    }),
  );
  let stopped = false;
  void (async () => {
    for await (const status of nc.status()) {
      if (stopped) return;
      if (status.type === "reconnect") options.onGap();
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}
