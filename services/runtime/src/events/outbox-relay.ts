import { createHash } from "node:crypto";
import { LockMode, type EntityManager, type MikroORM } from "@mikro-orm/postgresql";
import { headers as natsHeaders, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, type JetStreamClient, type PubAck } from "@nats-io/jetstream";
import { NatsLink } from "./nats.js";
import type { Logger } from "../logger.js";
import { OutboxEvent } from "./entities.js";
import { streamName, type EventEnvelope } from "./envelope.js";
import { queryRows, sql, toDateOrNull } from "../db/sql.js";
import type { CounterChild, HistogramChild } from "../metrics/fast-metrics.js";
import { addScrapeSource } from "../metrics/registry.js";
import { outboxBacklog, outboxOldestAge, outboxPublished, outboxRelayLatency } from "../metrics/series.js";

export interface OutboxRelayOptions {
  orm: MikroORM;
  /** The connection, or a link that connects later (rows wait in the outbox until then). */
  nats: NatsConnection | NatsLink;
  /** The producing context; events are published to its stream (IMPRINT_<CONTEXT>). */
  context: string;
  logger: Logger;
  /** How often the outbox is polled when nobody calls `notify()` (default 250 ms). */
  pollIntervalMs?: number;
  /** Rows published per transaction (default 100). */
  batchSize?: number;
  /** How long published rows are kept before they are deleted (default 7 days). */
  retentionMs?: number;
  /** How often old published rows are deleted (default 1 hour). */
  cleanupIntervalMs?: number;
  /** Milliseconds to wait for each JetStream ack (default 5 s). */
  publishTimeoutMs?: number;
  clock?: () => Date;
  /** The `service` label of its series (the outbox backlog, the relay latency); the context by default. */
  service?: string;
  /**
   * Test seam: runs after JetStream acknowledged a batch and before its rows are marked published.
   * Throwing here behaves like a crash at the worst moment: the batch stays unpublished in the
   * outbox and is sent again, and JetStream drops the copies by their Nats-Msg-Id.
   */
  beforeMarkPublished?: (events: EventEnvelope[]) => void | Promise<void>;
}

export interface OutboxRelayStats {
  /** Events JetStream stored for the first time. */
  published: number;
  /** Events JetStream recognised as already stored (dropped by Nats-Msg-Id). */
  duplicates: number;
  /** Failed relay rounds (e.g. NATS unreachable). */
  failures: number;
}

/** Rows processed in one round, or the failure that ended it. */
interface BatchResult {
  claimed: number;
  error?: unknown;
}

/**
 * Moves committed outbox rows of one context (subjects imprint.<context>.v1.*) to JetStream: at least once, in `sequence` order, deduplicated by
 * JetStream through `Nats-Msg-Id`. Several replicas may run it: a transaction-scoped advisory lock
 * lets one replica publish at a time (which keeps the order), and `for update skip locked` keeps
 * rows claimed by another transaction out of a batch.
 */
export class OutboxRelay {
  private readonly orm: MikroORM;
  private readonly link: NatsLink;
  private js: JetStreamClient | undefined;
  private readonly logger: Logger;
  private readonly stream: string;
  private readonly subjectPattern: string;
  private readonly lockKey: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  private readonly cleanupIntervalMs: number;
  private readonly publishTimeoutMs: number;
  private readonly clock: () => Date;
  private readonly beforeMarkPublished: OutboxRelayOptions["beforeMarkPublished"];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = false;
  private lastCleanupAt = 0;
  private readonly counters: OutboxRelayStats = { published: 0, duplicates: 0, failures: 0 };
  private readonly service: string;
  private readonly latency: HistogramChild;
  private readonly publishedSeries: CounterChild;
  private removeScrapeSource: (() => void) | undefined;

  constructor(options: OutboxRelayOptions) {
    this.orm = options.orm;
    this.link = options.nats instanceof NatsLink ? options.nats : NatsLink.of(options.nats);
    this.stream = streamName(options.context);
    // Only this context's rows: they are the ones its stream accepts.
    this.subjectPattern = `imprint.${options.context.replace(/_/g, "\\_")}.v1.%`;
    this.logger = options.logger.child({ component: "outbox-relay" });
    // Advisory locks take a bigint: derive a stable one from the stream name.
    this.lockKey = createHash("sha256").update(`imprint-outbox:${this.stream}`).digest().readBigInt64BE(0).toString();
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.batchSize = options.batchSize ?? 100;
    this.retentionMs = options.retentionMs ?? 7 * 24 * 3600 * 1000;
    this.cleanupIntervalMs = options.cleanupIntervalMs ?? 3600 * 1000;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
    this.clock = options.clock ?? (() => new Date());
    this.beforeMarkPublished = options.beforeMarkPublished;
    this.service = options.service ?? options.context;
    this.latency = outboxRelayLatency.child(this.service);
    this.publishedSeries = outboxPublished.child(this.service);
  }

  get stats(): Readonly<OutboxRelayStats> {
    return { ...this.counters };
  }

  /** Starts polling. */
  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => this.notify(), this.pollIntervalMs);
    this.timer.unref();
    this.removeScrapeSource = addScrapeSource({ collect: () => this.measureBacklog() });
    this.notify();
  }

  /** Publishes now (called after a use case commits) instead of waiting for the next poll. */
  notify(): void {
    if (this.stopped) return;
    this.trigger();
  }

  /** Stops polling, publishes what is left once, then returns. */
  async stop(): Promise<void> {
    if (this.stopped) {
      await this.running;
      return;
    }
    this.stopped = true;
    this.removeScrapeSource?.();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    this.trigger();
    await this.running;
  }

  /** Resolves when the relay is idle (handy after `notify()` in tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private trigger(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    do {
      this.rerun = false;
      await this.cleanupIfDue();
      for (;;) {
        const result = await this.publishBatch();
        if (result.error !== undefined) {
          this.counters.failures += 1;
          this.logger.warn("outbox relay round failed; retrying on the next tick", { err: result.error });
          return;
        }
        if (result.claimed < this.batchSize) break;
      }
    } while (this.rerun && !this.stopped);
  }

  private async publishBatch(): Promise<BatchResult> {
    const nc = this.link.current;
    // NATS not reached yet (the link logs its attempts): the rows wait for a later tick.
    if (!nc) return { claimed: 0 };
    this.js ??= jetstream(nc);
    try {
      return await this.orm.em.fork().transactional(async (em) => {
        const rows = await this.claimBatch(em);
        if (rows.length === 0) return { claimed: 0 };
        const acks = await Promise.allSettled(rows.map((row) => this.publish(row)));
        // Only the prefix that JetStream acknowledged counts: a later row must not be marked
        // published while an earlier one still waits, or it would overtake it on retry.
        const acknowledged: OutboxEvent[] = [];
        let failure: unknown;
        for (const [index, ack] of acks.entries()) {
          if (ack.status === "rejected") {
            failure = ack.reason;
            break;
          }
          acknowledged.push(rows[index]!);
          // From the commit (the row's creation, on the system clock) to JetStream's acknowledgement.
          this.latency.observe(Math.max(0, Date.now() - rows[index]!.createdAt.getTime()) / 1_000);
          this.publishedSeries.inc();
          if (ack.value.duplicate) this.counters.duplicates += 1;
          else this.counters.published += 1;
        }
        if (acknowledged.length > 0) {
          await this.beforeMarkPublished?.(acknowledged.map((row) => row.envelope as unknown as EventEnvelope));
          await em.nativeUpdate(OutboxEvent, { id: { $in: acknowledged.map((row) => row.id) } }, { publishedAt: this.clock() });
        }
        return failure === undefined ? { claimed: rows.length } : { claimed: rows.length, error: failure };
      });
    } catch (error) {
      return { claimed: 0, error };
    }
  }

  /** The events waiting to be published and the age of the oldest (asked at scrape time). */
  private async measureBacklog(): Promise<void> {
    const [row] = await queryRows(
      this.orm.em.fork(),
      sql<{ backlog: number; oldest: string | null }>`select count(*)::int as backlog, min(created_at) as oldest
        from outbox_events where published_at is null and subject like ${this.subjectPattern}`,
    );
    outboxBacklog.set({ service: this.service }, row?.backlog ?? 0);
    const oldest = toDateOrNull(row?.oldest);
    outboxOldestAge.set({ service: this.service }, oldest ? Math.max(0, Date.now() - oldest.getTime()) / 1_000 : 0);
  }

  private async claimBatch(em: EntityManager): Promise<OutboxEvent[]> {
    const [lock] = await queryRows(em, sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${this.lockKey}::bigint) as locked`);
    if (!lock?.locked) return [];
    return em.find(
      OutboxEvent,
      { publishedAt: null, subject: { $like: this.subjectPattern } },
      { orderBy: { sequence: "asc" }, limit: this.batchSize, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
  }

  private publish(row: OutboxEvent): Promise<PubAck> {
    const headers = natsHeaders();
    headers.set("Nats-Msg-Id", row.id);
    for (const [key, value] of Object.entries(row.traceHeaders ?? {})) headers.set(key, value);
    return this.js!.publish(row.subject, JSON.stringify(row.envelope), {
      headers,
      timeout: this.publishTimeoutMs,
      expect: { streamName: this.stream },
    });
  }

  private async cleanupIfDue(): Promise<void> {
    const now = this.clock();
    if (now.getTime() - this.lastCleanupAt < this.cleanupIntervalMs) return;
    this.lastCleanupAt = now.getTime();
    try {
      const deleted = await this.orm.em.fork().nativeDelete(OutboxEvent, {
        publishedAt: { $lt: new Date(now.getTime() - this.retentionMs) },
        subject: { $like: this.subjectPattern },
      });
      if (deleted > 0) this.logger.info("deleted old published outbox rows", { deleted });
    } catch (error) {
      this.logger.warn("outbox cleanup failed", { err: error });
    }
  }
}
