import type { NatsConnection } from "@nats-io/transport-node";
import type { EventEnvelope } from "../events/envelope.js";
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
 * Follows some contexts' events on this process's own subscription (every replica hears every
 * event, unlike a durable consumer shared by the replicas) and tells `follower` when it hears them
 * and when it may have missed some: from the moment the server has the subscription, not while
 * disconnected, and anew after each reconnect.
 */
export function followEvents(
  nc: NatsConnection,
  options: { contexts: readonly string[]; onEvent(envelope: EventEnvelope, subject: string): void; follower: EventFollower; logger: Logger },
): EventWatch {
  const { follower, logger } = options;
  let stopped = false;
  const watch = watchEvents(nc, {
    contexts: options.contexts,
    onEvent: (envelope, subject) => options.onEvent(envelope, subject),
    onGap: () => {
      if (!stopped) follower.followingEvents();
    },
    logger,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (stopped) return;
      if (status.type === "disconnect") follower.lostEvents();
    }
  })();
  void nc.flush().then(
    () => {
      if (!stopped) follower.followingEvents();
    },
    (error: unknown) => logger.warn("cannot confirm the event subscription; stale answers stay off until NATS reconnects", { err: error }),
  );
  return {
    stop: async () => {
      stopped = true;
      follower.lostEvents();
      await watch.stop();
    },
  };
}
