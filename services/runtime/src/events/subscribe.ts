import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerConfig, type JsMsg } from "@nats-io/jetstream";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "../logger.js";
import { withExtractedContext } from "../telemetry/propagation.js";
import { UndecodablePayloadError } from "./definitions.js";
import { ProcessedEvent } from "./entities.js";
import { deadLetterSubject, parseEnvelope, streamName, type EventEnvelope } from "./envelope.js";
import { ensureStream, isConsumerNotFound } from "./nats.js";

export interface EventHandlerContext {
  /** EntityManager of the transaction that also records the event as processed. */
  em: EntityManager;
  /** 1 for the first delivery. */
  attempt: number;
  logger: Logger;
}

export type EventHandler = (envelope: EventEnvelope, ctx: EventHandlerContext) => Promise<void>;

export interface SubscribeOptions {
  nats: NatsConnection;
  /** The consumer's own database (idempotency records and the handler's changes). */
  orm: MikroORM;
  /** The producer's context: selects the stream IMPRINT_<CONTEXT>. */
  context: string;
  /** Durable consumer name, unique per consuming use (letters, digits, - and _). */
  consumer: string;
  /** e.g. "imprint.identity.v1.member.>" */
  filterSubject: string;
  handler: EventHandler;
  /** Deliveries before a message goes to the dead-letter stream (default 5). */
  maxDeliver?: number;
  /** Redelivery delay after the n-th failure (the last entry repeats; default [200, 1000, 5000, 15000]). */
  backoffMs?: number[];
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
   * events of different keys concurrently. Default {@link keyByOrganization}; e.g.
   * `keyByPayload("spaceId")` for consumers whose work is per space.
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

export interface Subscription {
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
 * Failures are retried with backoff; after `maxDeliver` attempts the message goes to
 * `imprint.dlq.<consumer>`.
 *
 * Up to `concurrency` events are handled at once, one at a time per key (`keyOf`), in the order
 * JetStream delivered them; keys take turns. Events waiting behind their key are kept from being
 * redelivered (in-progress acks) until their handler starts, which then has the whole `ackWaitMs`.
 * A retried event (nak with backoff) comes back later, after its key's next events, as it did
 * when events were handled one at a time; replicas of a consumer split its events between them,
 * so a key's order holds within a replica.
 */
export async function subscribe(options: SubscribeOptions): Promise<Subscription> {
  const { nats, orm, consumer, filterSubject, handler } = options;
  if (!CONSUMER_NAME.test(consumer)) throw new Error(`consumer "${consumer}" must match ${CONSUMER_NAME.source}`);
  const maxDeliver = options.maxDeliver ?? 5;
  const backoffMs = options.backoffMs ?? [200, 1000, 5000, 15000];
  if (maxDeliver < 1) throw new Error("maxDeliver must be at least 1");
  if (backoffMs.length === 0) throw new Error("backoffMs needs at least one delay");
  const concurrency = options.concurrency ?? DEFAULT_CONSUMER_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be a positive integer");
  const keyOf = options.keyOf ?? keyByOrganization;
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const stream = streamName(options.context);
  const logger = options.logger.child({ component: "event-consumer", consumer });
  const clock = options.clock ?? (() => new Date());

  // The consumer may start before the producer ever ran: make sure the stream is there.
  await ensureStream(nats, options.context, { replicas: options.streamReplicas });
  const jsm = await jetstreamManager(nats);
  const config: Partial<ConsumerConfig> = {
    durable_name: consumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    ack_wait: ackWaitMs * 1_000_000,
    // Redelivery is bounded by this module (dead-letter after maxDeliver), not by the server:
    // a server-side limit would silently stop delivering without a dead letter.
    max_deliver: -1,
    max_ack_pending: 1_000,
  };
  try {
    const existing = await jsm.consumers.info(stream, consumer);
    if (existing.config.filter_subject !== filterSubject) {
      // nats-server 2.9 cannot change a durable's filter: recreate it (it restarts from the stream start).
      logger.warn("filter subject changed; recreating durable consumer", { from: existing.config.filter_subject, to: filterSubject });
      await jsm.consumers.delete(stream, consumer);
      await jsm.consumers.add(stream, config);
    } else {
      await jsm.consumers.update(stream, consumer, { ack_wait: config.ack_wait, max_deliver: -1, max_ack_pending: 1_000 });
    }
  } catch (error) {
    if (!isConsumerNotFound(error)) throw error;
    await jsm.consumers.add(stream, config);
  }

  const js = jetstream(nats);
  const messages = await (await js.consumers.get(stream, consumer)).consume({ max_messages: 100 });

  const deadLetter = async (msg: JsMsg, body: Record<string, unknown>, messageId: string) => {
    await js.publish(deadLetterSubject(consumer), JSON.stringify({ ...body, consumer, failedAt: clock().toISOString() }), {
      msgID: messageId,
    });
    // No reason text: nats-server 2.9 only understands a bare +TERM.
    msg.term();
  };

  const handle = async (msg: JsMsg, parsed: ReturnType<typeof parseEnvelope>): Promise<void> => {
    const attempt = msg.info.deliveryCount;
    if ("problem" in parsed) {
      logger.error("malformed event sent to the dead-letter stream", { subject: msg.subject, problem: parsed.problem });
      await deadLetter(
        msg,
        { envelope: null, raw: new TextDecoder().decode(msg.data), subject: msg.subject, error: parsed.problem, attempts: attempt },
        `${consumer}:${stream}:${msg.seq}`,
      );
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
            if (handled) options.afterCommit?.();
            else eventLogger.debug("event already processed; skipped");
          } catch (error) {
            span.recordException(error instanceof Error ? error : new Error(errorMessage(error)));
            span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
            // A payload that does not decode never will: no retries.
            const undecodable = error instanceof UndecodablePayloadError;
            if (undecodable || attempt >= maxDeliver) {
              eventLogger.error(`${undecodable ? "event payload does not decode" : "event handler failed for the last time"}; sent to the dead-letter stream`, { err: error });
              await deadLetter(msg, { envelope, error: errorMessage(error), attempts: attempt }, `${consumer}:${envelope.id}`);
            } else {
              const delay = backoffMs[Math.min(attempt - 1, backoffMs.length - 1)]!;
              eventLogger.warn("event handler failed; will retry", { err: error, retryInMs: delay });
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
          logger.error("could not settle message; it will be redelivered", { err: error, subject: next.msg.subject });
          next.msg.nak(backoffMs[backoffMs.length - 1]);
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

  // How many unacknowledged events are in memory at once is bounded by max_ack_pending.
  const loop = (async () => {
    for await (const msg of messages) {
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
    }
  })();

  let stopping: Promise<void> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        await messages.close();
        await loop;
        stopped = true;
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
