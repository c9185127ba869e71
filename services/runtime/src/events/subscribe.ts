import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerConfig, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "../logger.js";
import { addScrapeSource } from "../metrics/registry.js";
import { consumerDeadLetters, consumerHandled, consumerOldestAge, consumerPending, consumerRedeliveries } from "../metrics/series.js";
import { withExtractedContext } from "../telemetry/propagation.js";
import { PoisonEventError, type EventDefinition } from "./definitions.js";
import { ProcessedEvent } from "./entities.js";
import { deadLetterSubject, parseEnvelope, REPLAY_STREAM, replaySubject, streamName, type EventEnvelope } from "./envelope.js";
import { backoffDelay, ensureDeadLetterStreams, ensureStream, isConsumerNotFound, NatsLink } from "./nats.js";

export interface EventHandlerContext {
  /** EntityManager of the transaction that also records the event as processed. */
  em: EntityManager;
  /** 1 for the first delivery. */
  attempt: number;
  logger: Logger;
}

export type EventHandler = (envelope: EventEnvelope, ctx: EventHandlerContext) => Promise<void>;

export interface SubscribeOptions {
  /** The connection, or a link that connects later (the consumer starts once NATS is reached). */
  nats: NatsConnection | NatsLink;
  /** The consumer's own database (idempotency records and the handler's changes). */
  orm: MikroORM;
  /** The producer's context: selects the stream IMPRINT_<CONTEXT>. */
  context: string;
  /** Durable consumer name, unique per consuming use (letters, digits, - and _). */
  consumer: string;
  /** e.g. "imprint.identity.v1.member.>" */
  filterSubject: string;
  handler: EventHandler;
  /**
   * Redelivery delay after a transient failure: `initialMs` (default 200) doubling up to `maxMs`
   * (default 30 s). Transient failures are retried without limit.
   */
  backoff?: { initialMs?: number; maxMs?: number };
  logger: Logger;
  /** Time a handler may take before JetStream redelivers the message (default 30 s). */
  ackWaitMs?: number;
  /** Called after a handler's transaction committed (the service bootstrap wakes its outbox relay). */
  afterCommit?: () => void;
  /** Time source for processed-at and dead-letter timestamps. */
  clock?: () => Date;
  /** Replicas of the producer's stream, which the consumer also creates or updates (default 1). */
  streamReplicas?: number;
  /**
   * Events handled at once (default {@link DEFAULT_CONSUMER_CONCURRENCY}; the service bootstrap
   * passes EVENT_CONCURRENCY). Events of different keys run side by side, each in its own
   * transaction, so one slow key (a 10,000-page import being indexed) does not hold up the others.
   */
  concurrency?: number;
  /**
   * An event's ordering key: events of one key are handled one after another, in stream order;
   * events of different keys concurrently. Default {@link keyByOrganization}; usually
   * `keyByAggregate(definitions)`: the ordering key each event's contract names (`spaceId`).
   */
  keyOf?: (envelope: EventEnvelope) => string;
}

export const DEFAULT_CONSUMER_CONCURRENCY = 4;

/** The default ordering key: the event's organization (events without one share a key). */
export function keyByOrganization(envelope: EventEnvelope): string {
  return envelope.organizationId ?? "";
}

/** Orders by a payload field (e.g. `spaceId`); events without it by their organization. */
export function keyByPayload(field: string): (envelope: EventEnvelope) => string {
  return (envelope) => {
    const value = envelope.payload[field];
    return typeof value === "string" && value !== "" ? `${field}:${value}` : keyByOrganization(envelope);
  };
}

/**
 * Orders each event of `definitions` by the aggregate its contract names (`orderingKey`, e.g. a
 * space's events by `spaceId`), as keyByPayload does; other events (and contracts without one) by
 * their organization.
 */
export function keyByAggregate(definitions: readonly EventDefinition<unknown>[]): (envelope: EventEnvelope) => string {
  const bySubject = new Map(
    definitions.flatMap((definition) => (definition.orderingKey ? [[definition.subject, keyByPayload(definition.orderingKey)] as const] : [])),
  );
  return (envelope) => (bySubject.get(envelope.subject) ?? keyByOrganization)(envelope);
}

/** Counters of one consumer in this process since it started (for logs and metrics). */
export interface ConsumerStats {
  /** Events whose handler committed. */
  handled: number;
  /** Events skipped because this consumer had already processed them. */
  skipped: number;
  /** Transient failures, each followed by a redelivery after a backoff. */
  retries: number;
  /** Events sent to the dead-letter stream (poison). */
  deadLettered: number;
}

export interface Subscription {
  /** The durable consumer's name. */
  readonly consumer: string;
  readonly stats: Readonly<ConsumerStats>;
  /** Resolves once the consumer exists on the server and receives events (or was stopped first). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

const CONSUMER_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const tracer = trace.getTracer("@imprint/runtime/events");

function headerRecord(msg: JsMsg): Record<string, string> {
  const result: Record<string, string> = {};
  if (!msg.headers) return result;
  for (const key of msg.headers.keys()) result[key.toLowerCase()] = msg.headers.get(key);
  return result;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `handler` for every event on `filterSubject`, at most once per event and consumer: each
 * message is handled in one transaction of the consumer's database that first records
 * (consumer, event id); a redelivered or republished event finds that row and is skipped.
 *
 * Only poison goes to the dead-letter stream `imprint.dlq.<consumer>`, at once: a malformed
 * envelope, a payload that does not decode, or a handler's {@link PoisonEventError}. Any other
 * failure (database, an upstream service, NATS) is transient: the event is redelivered after a
 * capped exponential backoff, without limit, with a warning per retry. The consumer also reads
 * `imprint.replay.<consumer>`, where `events dead-letters replay` hands a dead letter back to it.
 *
 * The consumer is (re)created whenever it or its stream is missing: at start, once NATS is
 * reachable, after a NATS restart that lost it, or when it was deleted on the server.
 *
 * Up to `concurrency` events are handled at once, one at a time per key (`keyOf`), in the order
 * JetStream delivered them; keys take turns. Events waiting behind their key are kept from being
 * redelivered (in-progress acks) until their handler starts, which then has the whole `ackWaitMs`.
 * A retried event (nak with backoff) comes back later, after its key's next events, as it did
 * when events were handled one at a time; replicas of a consumer split its events between them,
 * so a key's order holds within a replica.
 */
export async function subscribe(options: SubscribeOptions): Promise<Subscription> {
  const subscription = startSubscription(options);
  await subscription.ready;
  return subscription;
}

interface Source {
  stream: string;
  filter: string;
  /** Makes sure the stream is there (the consumer may start before the producer ever ran). */
  ensure(nc: NatsConnection): Promise<void>;
}

/**
 * {@link subscribe} without waiting for NATS: returns at once, and the consumer starts (and
 * restarts) in the background. `ready` tells when it first receives events.
 */
export function startSubscription(options: SubscribeOptions): Subscription {
  const { orm, consumer, filterSubject, handler } = options;
  if (!CONSUMER_NAME.test(consumer)) throw new Error(`consumer "${consumer}" must match ${CONSUMER_NAME.source}`);
  const initialBackoffMs = options.backoff?.initialMs ?? 200;
  const maxBackoffMs = options.backoff?.maxMs ?? 30_000;
  if (!(initialBackoffMs > 0) || !(maxBackoffMs >= initialBackoffMs)) throw new Error("backoff needs 0 < initialMs <= maxMs");
  const retryDelay = (attempt: number) => Math.min(maxBackoffMs, initialBackoffMs * 2 ** Math.min(attempt - 1, 30));
  const concurrency = options.concurrency ?? DEFAULT_CONSUMER_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be a positive integer");
  const keyOf = options.keyOf ?? keyByOrganization;
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const stream = streamName(options.context);
  const link = options.nats instanceof NatsLink ? options.nats : NatsLink.of(options.nats);
  const logger = options.logger.child({ component: "event-consumer", consumer });
  const clock = options.clock ?? (() => new Date());
  const counters: ConsumerStats = { handled: 0, skipped: 0, retries: 0, deadLettered: 0 };
  const series = {
    handled: consumerHandled.child(consumer),
    redeliveries: consumerRedeliveries.child(consumer),
    deadLetters: consumerDeadLetters.child(consumer),
  };
  const replicas = { replicas: options.streamReplicas };

  const config = (filter: string): Partial<ConsumerConfig> => ({
    durable_name: consumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filter,
    ack_wait: ackWaitMs * 1_000_000,
    // Redelivery is this module's decision (retry transient failures, dead-letter poison), not
    // the server's: a server-side limit would silently stop delivering without a dead letter.
    max_deliver: -1,
    max_ack_pending: 1_000,
  });

  const ensureConsumer = async (nc: NatsConnection, source: Source): Promise<void> => {
    await source.ensure(nc);
    const jsm = await jetstreamManager(nc);
    const wanted = config(source.filter);
    try {
      const existing = await jsm.consumers.info(source.stream, consumer);
      if (existing.config.filter_subject !== source.filter) {
        // nats-server 2.9 cannot change a durable's filter: recreate it (it restarts from the stream start).
        logger.warn("filter subject changed; recreating durable consumer", { from: existing.config.filter_subject, to: source.filter });
        await jsm.consumers.delete(source.stream, consumer);
        await jsm.consumers.add(source.stream, wanted);
      } else {
        await jsm.consumers.update(source.stream, consumer, { ack_wait: wanted.ack_wait, max_deliver: -1, max_ack_pending: 1_000 });
      }
    } catch (error) {
      if (!isConsumerNotFound(error)) throw error;
      await jsm.consumers.add(source.stream, wanted);
    }
  };

  const deadLetter = async (msg: JsMsg, body: Record<string, unknown>) => {
    const nc = link.current;
    if (!nc) throw new Error("NATS is not connected");
    const record = {
      ...body,
      consumer,
      subject: msg.subject,
      stream: msg.info.stream,
      streamSequence: msg.seq,
      failedAt: clock().toISOString(),
    };
    // One dead letter per stored message: a redelivery after a crash between publish and term
    // is dropped by the id, and a replayed event that fails again (another message) is kept.
    await jetstream(nc).publish(deadLetterSubject(consumer), JSON.stringify(record), { msgID: `${consumer}:${msg.info.stream}:${msg.seq}` });
    // No reason text: nats-server 2.9 only understands a bare +TERM.
    msg.term();
    counters.deadLettered += 1;
    series.deadLetters.inc();
  };

  const handle = async (msg: JsMsg, parsed: ReturnType<typeof parseEnvelope>): Promise<void> => {
    const attempt = msg.info.deliveryCount;
    if ("problem" in parsed) {
      logger.error("malformed event sent to the dead-letter stream", { subject: msg.subject, problem: parsed.problem });
      await deadLetter(msg, { envelope: null, raw: new TextDecoder().decode(msg.data), error: parsed.problem, attempts: attempt });
      return;
    }
    const { envelope } = parsed;
    await withExtractedContext(headerRecord(msg), () =>
      tracer.startActiveSpan(
        `process ${envelope.subject}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            "messaging.system": "nats",
            "messaging.operation.type": "process",
            "messaging.destination.name": msg.subject,
            "messaging.message.id": envelope.id,
            "messaging.consumer.group.name": consumer,
            "imprint.event.type": envelope.type,
            "imprint.delivery.attempt": attempt,
          },
        },
        async (span) => {
          const eventLogger = logger.child({ eventId: envelope.id, eventType: envelope.type, attempt });
          try {
            const handled = await orm.em.fork().transactional(async (em) => {
              const inserted = await em
                .createQueryBuilder(ProcessedEvent)
                .insert({ consumer, eventId: envelope.id, processedAt: clock() })
                .onConflict(["consumer", "eventId"])
                .ignore()
                .execute<{ affectedRows: number }>("run");
              if (inserted.affectedRows === 0) return false;
              await handler(envelope, { em, attempt, logger: eventLogger });
              return true;
            });
            msg.ack();
            if (handled) {
              counters.handled += 1;
              series.handled.inc();
              if (attempt > 1) eventLogger.info("event handled after retries");
              options.afterCommit?.();
            } else {
              counters.skipped += 1;
              eventLogger.debug("event already processed; skipped");
            }
          } catch (error) {
            span.recordException(error instanceof Error ? error : new Error(errorMessage(error)));
            span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
            if (error instanceof PoisonEventError) {
              // An invalid event (or a payload that does not decode) never succeeds: no retries.
              eventLogger.error("poison event sent to the dead-letter stream", { err: error });
              await deadLetter(msg, { envelope, error: errorMessage(error), attempts: attempt });
            } else {
              const delay = retryDelay(attempt);
              counters.retries += 1;
              series.redeliveries.inc();
              eventLogger.warn("event handler failed; will retry", { err: error, nextDelayMs: delay });
              msg.nak(delay);
            }
          } finally {
            span.end();
          }
        },
      ),
    );
  };

  // Per key, its events not started yet, in delivery order; a key is here while one of its
  // events is handled or waits. `turns` holds the keys whose next event may start, in turn order.
  // `since`: when JetStream's ack timer last started for it (delivery or in-progress ack).
  const waiting = new Map<string, { msg: JsMsg; parsed: ReturnType<typeof parseEnvelope>; since: number }[]>();
  const turns: string[] = [];
  const running = new Set<Promise<void>>();
  let stopped = false;

  const keyFor = (parsed: ReturnType<typeof parseEnvelope>): string => {
    // A malformed message only goes to the dead-letter stream: it needs no place in any order.
    if ("problem" in parsed) return "\u0000malformed";
    try {
      return keyOf(parsed.envelope);
    } catch (error) {
      logger.warn("keyOf failed; ordering the event by its organization", { err: error, eventId: parsed.envelope.id });
      return keyByOrganization(parsed.envelope);
    }
  };

  const pump = (): void => {
    while (!stopped && running.size < concurrency && turns.length > 0) {
      const key = turns.shift()!;
      const next = waiting.get(key)!.shift()!;
      // The handler gets the whole ack wait, however long the event waited for its turn.
      if (performance.now() - next.since > Math.min(1_000, ackWaitMs / 10)) next.msg.working();
      const run = handle(next.msg, next.parsed)
        .catch((error: unknown) => {
          // Only reachable when the dead-letter publish itself failed: leave the message to be
          // redelivered rather than lose it.
          counters.retries += 1;
          series.redeliveries.inc();
          logger.warn("could not send the event to the dead-letter stream; it will be redelivered", {
            err: error,
            subject: next.msg.subject,
            nextDelayMs: maxBackoffMs,
          });
          next.msg.nak(maxBackoffMs);
        })
        .finally(() => {
          running.delete(run);
          if (waiting.get(key)!.length > 0) turns.push(key);
          else waiting.delete(key);
          pump();
        });
      running.add(run);
    }
  };

  const enqueue = (msg: JsMsg): void => {
    const parsed = parseEnvelope(msg.data);
    const key = keyFor(parsed);
    const entry = { msg, parsed, since: performance.now() };
    const queue = waiting.get(key);
    if (queue) {
      queue.push(entry);
    } else {
      waiting.set(key, [entry]);
      turns.push(key);
    }
    pump();
  };

  // Events waiting behind their key stay this consumer's: tell JetStream they are in progress.
  const keepWaiting = setInterval(
    () => {
      const now = performance.now();
      for (const queue of waiting.values()) {
        for (const entry of queue) {
          entry.msg.working();
          entry.since = now;
        }
      }
    },
    Math.max(100, Math.floor(ackWaitMs / 3)),
  );
  keepWaiting.unref();

  const sources: Source[] = [
    { stream, filter: filterSubject, ensure: (nc) => ensureStream(nc, options.context, replicas) },
    { stream: REPLAY_STREAM, filter: replaySubject(consumer), ensure: (nc) => ensureDeadLetterStreams(nc, replicas) },
  ];
  const iterators = new Set<ConsumerMessages>();
  let wakeSleepers: (() => void)[] = [];
  let signalStopped!: () => void;
  const stoppedSignal = new Promise<undefined>((resolve) => {
    signalStopped = () => resolve(undefined);
  });
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleepers = wakeSleepers.filter((wake) => wake !== done);
        resolve();
      }
      wakeSleepers.push(done);
    });

  /** Consumes one source until stopped, recreating the consumer whenever it went missing. */
  const follow = async (source: Source, started: () => void): Promise<void> => {
    let nc: NatsConnection | undefined;
    try {
      nc = await Promise.race([link.connected, stoppedSignal]);
    } catch {
      return; // the link was closed before NATS was ever reached
    }
    if (!nc) return; // stopped before NATS was ever reached
    for (let failures = 0; !stopped && !nc.isClosed(); ) {
      let messages: ConsumerMessages | undefined;
      try {
        await ensureConsumer(nc, source);
        if (stopped) return;
        messages = await (await jetstream(nc).consumers.get(source.stream, consumer)).consume({ max_messages: 100 });
        iterators.add(messages);
        if (stopped) {
          // stop() closed the iterators it knew of before this one existed.
          await messages.close();
          return;
        }
        failures = 0;
        started();
        const current = messages;
        // consume() survives reconnects by itself, but waits forever for a consumer or stream
        // that is gone: end it, and the loop creates them again.
        void (async () => {
          for await (const status of current.status()) {
            if (status.type === "consumer_deleted" || status.type === "consumer_not_found" || status.type === "stream_not_found") {
              logger.warn("consumer or stream missing on the server; recreating it", { stream: source.stream, notification: status.type });
              await current.close().catch(() => undefined);
              return;
            }
          }
        })();
        // How many unacknowledged events are in memory at once is bounded by max_ack_pending.
        for await (const msg of messages) enqueue(msg);
      } catch (error) {
        if (stopped || nc.isClosed()) return;
        failures += 1;
        const delay = backoffDelay(failures, 5_000);
        logger.warn("could not start the consumer; retrying", { stream: source.stream, attempt: failures, nextDelayMs: delay, err: error });
        await pause(delay);
        continue;
      } finally {
        if (messages) iterators.delete(messages);
      }
      if (!stopped && !nc.isClosed()) await pause(backoffDelay(1));
    }
  };

  // The consumer's lag, asked of JetStream when Prometheus scrapes (never on the delivery path).
  const removeScrapeSource = addScrapeSource({
    collect: async () => {
      const nc = link.current;
      if (!nc || nc.isClosed()) return;
      const jsm = await jetstreamManager(nc);
      const info = await jsm.consumers.info(stream, consumer);
      const pending = info.num_pending + info.num_ack_pending;
      consumerPending.set({ consumer }, pending);
      let ageSeconds = 0;
      if (pending > 0) {
        const seq = info.ack_floor.stream_seq + 1;
        // The first event after the acknowledged floor that the consumer's filter takes (servers
        // that do not know next_by_subj answer the event at that sequence: no younger than it).
        const oldest = await jsm.streams
          .getMessage(stream, { seq, next_by_subj: filterSubject } as unknown as { seq: number })
          .catch(() => jsm.streams.getMessage(stream, { seq }));
        if (oldest) ageSeconds = Math.max(0, Date.now() - oldest.time.getTime()) / 1_000;
      }
      consumerOldestAge.set({ consumer }, ageSeconds);
    },
  });

  let readyCount = 0;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const loops = sources.map((source) => {
    let counted = false;
    return follow(source, () => {
      if (counted) return;
      counted = true;
      readyCount += 1;
      if (readyCount === sources.length) markReady();
    }).catch((error: unknown) => logger.error("event consumer stopped unexpectedly", { err: error, stream: source.stream }));
  });

  let stopping: Promise<void> | undefined;
  return {
    consumer,
    get stats() {
      return { ...counters };
    },
    ready,
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        removeScrapeSource();
        signalStopped();
        markReady();
        for (const wake of wakeSleepers) wake();
        await Promise.allSettled([...iterators].map((messages) => messages.close()));
        await Promise.allSettled(loops);
        while (running.size > 0) await Promise.allSettled([...running]);
        // Events still waiting are left unacknowledged: JetStream redelivers them after the ack
        // wait, as it does the messages the closed iterator had buffered. (A nak would hand them
        // to this consumer's pull request still open on the server, not to another replica.)
        clearInterval(keepWaiting);
        waiting.clear();
      })();
      return stopping;
    },
  };
}
