import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "../logger.js";
import type { EventDefinition } from "./definitions.js";
import { contextSubjects, parseEnvelope } from "./envelope.js";
import { eventDecoder, type DecodedEvent } from "./handle-events.js";
import { NatsLink } from "./nats.js";

export interface EventWatch {
  /**
   * True while events are heard as they are published: NATS connected and subscribed. While it
   * is false (NATS not reached yet, or reconnecting), whatever the events would invalidate must
   * not be trusted longer than without events.
   */
  following(): boolean;
  stop(): Promise<void>;
}

export interface WatchEventsOptions<D extends readonly EventDefinition<unknown>[]> {
  /** The events to hear (their producers' contracts); their contexts' subjects are subscribed to. */
  events: D;
  /** Called for each of them as it is published, its payload decoded with its message. */
  onEvent(event: DecodedEvent<D[number]>): void;
  /**
   * Called on the first connect and after every reconnect: events published while disconnected
   * were not seen, so whatever was derived from them must be dropped.
   */
  onGap(): void;
  logger: Logger;
}

/**
 * Follows some events as they are published, with a plain NATS subscription on their contexts'
 * subjects: no consumer, no acknowledgement, nothing replayed. This is for caches of a process
 * without a database (the reader), which only need to hear that something changed, soon; work
 * that must happen once per event uses `subscribe` (durable and idempotent) instead. Events of
 * other types are skipped; one whose envelope or payload cannot be read is logged and skipped.
 */
export function watchEvents<const D extends readonly EventDefinition<unknown>[]>(nats: NatsConnection | NatsLink, options: WatchEventsOptions<D>): EventWatch {
  const link = nats instanceof NatsLink ? nats : NatsLink.of(nats);
  const decode = eventDecoder(options.events);
  const contexts = [...new Set(options.events.map((definition) => definition.context))];
  let stopped = false;
  let up = false;
  let subscriptions: Subscription[] = [];
  const subscribeAll = (nc: NatsConnection) =>
    contexts.map((context) =>
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
          let event: DecodedEvent<D[number]> | undefined;
          try {
            event = decode(parsed.envelope);
          } catch (problem) {
            options.logger.warn("undecodable event ignored", { subject: message.subject, problem: (problem as Error).message });
            return;
          }
          if (event) options.onEvent(event);
        },
      }),
    );
  const connected = link.connected.then(
    async (nc) => {
      if (stopped) return;
      subscriptions = subscribeAll(nc);
      up = true;
      // What was kept before the first connect was kept without events.
      options.onGap();
      for await (const status of nc.status()) {
        if (stopped) return;
        if (status.type === "disconnect") up = false;
        if (status.type === "reconnect") {
          up = true;
          options.onGap();
        }
      }
    },
    () => undefined,
  );
  void connected;
  return {
    following: () => up && !stopped && link.current !== undefined && !link.current.isClosed(),
    stop: async () => {
      stopped = true;
      up = false;
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}
