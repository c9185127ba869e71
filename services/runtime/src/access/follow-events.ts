import type { NatsConnection } from "@nats-io/transport-node";
import type { EventDefinition } from "../events/definitions.js";
import type { DecodedEvent } from "../events/handle-events.js";
import { NatsLink } from "../events/nats.js";
import { watchEvents, type EventWatch } from "../events/watch.js";
import type { Logger } from "../logger.js";

/** A cache whose stale answers are safe only while the events that evict them are heard. */
export interface EventFollower {
  /** Events are heard from now on (also after a reconnect: what was kept before may have missed one). */
  followingEvents(): void;
  /** Events are no longer heard (disconnected, stopped). */
  lostEvents(): void;
}

/**
 * Follows some events (their producers' contracts) on this process's own subscription (every
 * replica hears every event, unlike a durable consumer shared by the replicas) and tells `follower`
 * when it hears them and when it may have missed some: from the moment the server has the
 * subscription (flushed), not while disconnected, and anew after each reconnect. NATS may still be
 * unreachable when this starts.
 */
export function followEvents<const D extends readonly EventDefinition<unknown>[]>(
  nats: NatsConnection | NatsLink,
  options: { events: D; onEvent(event: DecodedEvent<D[number]>): void; follower: EventFollower; logger: Logger },
): EventWatch {
  const { follower, logger } = options;
  const link = nats instanceof NatsLink ? nats : NatsLink.of(nats);
  let stopped = false;
  const watch = watchEvents(link, {
    events: options.events,
    onEvent: (event) => options.onEvent(event),
    // On the first connect and each reconnect, once the server has the subscriptions.
    onGap: () => {
      void link.current?.flush().then(
        () => {
          if (!stopped) follower.followingEvents();
        },
        (error: unknown) => logger.warn("cannot confirm the event subscription; stale answers stay off until NATS reconnects", { err: error }),
      );
    },
    logger,
  });
  void link.connected.then(
    async (nc) => {
      for await (const status of nc.status()) {
        if (stopped) return;
        if (status.type === "disconnect") follower.lostEvents();
      }
    },
    () => undefined,
  );
  return {
    following: () => watch.following(),
    stop: async () => {
      stopped = true;
      follower.lostEvents();
      await watch.stop();
    },
  };
}
