import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import type { Logger } from "../logger.js";
import { contextSubjects, DEAD_LETTER_STREAM, DEAD_LETTER_SUBJECT_PREFIX, REPLAY_STREAM, REPLAY_SUBJECT_PREFIX, streamName } from "./envelope.js";

export type { NatsConnection } from "@nats-io/transport-node";

const SECOND_NS = 1_000_000_000;
/** Window in which JetStream drops a message whose Nats-Msg-Id it has already stored. */
export const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

/**
 * Connects to NATS and keeps reconnecting forever once connected: a NATS outage must only delay
 * events (the outbox keeps them), never take the service down.
 */
export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000 });
}

/** Delay before the n-th (1-based) retry: 200 ms doubling up to `capMs` (default 30 s). */
export function backoffDelay(attempt: number, capMs = 30_000): number {
  return Math.min(capMs, 200 * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
}

/**
 * A NATS connection that may not exist yet: a process starts and serves while NATS is down, and
 * what needs NATS (the outbox relay, consumers, event watches) waits for `connected`.
 */
export class NatsLink {
  private connection: NatsConnection | undefined;
  private up = false;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly connecting: Promise<NatsConnection>;
  private settleFirstAttempt!: (connected: boolean) => void;
  /** Resolves with whether the first attempt connected (false: NATS is down, retries go on). */
  readonly firstAttempt = new Promise<boolean>((resolve) => {
    this.settleFirstAttempt = resolve;
  });

  /** A link over a connection that is already open. */
  static of(nc: NatsConnection): NatsLink {
    const link = new NatsLink(async () => nc);
    // Usable at once, not only after the connect promise settled.
    link.connection = nc;
    return link;
  }

  /**
   * Keeps calling `open` (with backoff, 200 ms … 5 s) until it succeeds or the link is closed.
   * `connected` rejects only when the link was closed before NATS was reached.
   */
  constructor(open: () => Promise<NatsConnection>, logger?: Logger) {
    this.connecting = (async () => {
      for (let attempt = 1; ; attempt += 1) {
        if (this.closed) {
          this.settleFirstAttempt(false);
          throw new Error("NATS link closed before it connected");
        }
        try {
          const nc = await open();
          if (this.closed) {
            await nc.close();
            throw new Error("NATS link closed before it connected");
          }
          this.connection = nc;
          this.settleFirstAttempt(true);
          if (attempt > 1) logger?.info("connected to NATS", { attempts: attempt });
          return nc;
        } catch (error) {
          this.settleFirstAttempt(false);
          if (this.closed) throw error;
          const delay = backoffDelay(attempt, 5_000);
          logger?.warn("NATS unreachable; retrying in the background (events wait in the outbox)", { attempt, retryInMs: delay, err: error });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delay);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = undefined;
        }
      }
    })();
    // Nobody may be waiting yet; a link closed early must not be an unhandled rejection.
    void this.connecting.then(
      async (nc) => {
        this.up = true;
        for await (const status of nc.status()) {
          if (status.type === "disconnect") this.up = false;
          else if (status.type === "reconnect") this.up = true;
        }
      },
      () => undefined,
    );
  }

  /** The connection, once NATS was reached (it then reconnects by itself). */
  get current(): NatsConnection | undefined {
    return this.connection;
  }

  /** Resolves with the connection once NATS was reached. */
  get connected(): Promise<NatsConnection> {
    return this.connecting;
  }

  /** True while the connection is up (not before the first connect, nor while reconnecting). */
  isUp(): boolean {
    const nc = this.connection;
    return nc !== undefined && !nc.isClosed() && !nc.isDraining() && this.up;
  }

  /** Stops trying to connect, or drains the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    const nc = this.connection;
    if (!nc || nc.isClosed()) return;
    // Draining needs the server; while it is unreachable there is nothing to drain to: just close.
    await nc.drain().catch(() => nc.close());
  }
}

/**
 * Connects to NATS in the background: the first connection is retried until it succeeds, and the
 * connection then reconnects forever by itself.
 */
export function connectNatsInBackground(url: string, name: string, logger: Logger): NatsLink {
  return new NatsLink(() => connectNats(url, name), logger);
}

export function isStreamNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

export function isConsumerNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}

async function upsertStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.info(config.name);
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
      return;
    } catch (addError) {
      // Another replica created it between our info and add: fall through to the update.
      if (!(addError instanceof JetStreamApiError)) throw addError;
    }
  }
  const { name, storage: _storage, retention: _retention, ...editable } = config;
  await jsm.streams.update(name, editable);
}

/** How a context's stream is kept: copies, and the limits past which it drops its oldest events. */
export interface StreamSettings {
  /** Copies of the stream (default 1; a clustered JetStream keeps up to 5). */
  replicas?: number;
  /** Age past which an event is dropped; 0: never. Undefined: leave the stream's as it is. */
  maxAgeMs?: number;
  /** Bytes past which the oldest events are dropped; 0: no limit. Undefined: leave the stream's as it is. */
  maxBytes?: number;
}

/**
 * Creates or updates the stream of one context (IMPRINT_<CONTEXT> on imprint.<context>.v1.>) and
 * the shared dead-letter stream, with `replicas` copies (default 1; a clustered JetStream keeps up to
 * 5). Existing streams are updated to it, so every process must be given the same number. Only
 * nats-server 2.9 features are used.
 */
export async function ensureStream(nc: NatsConnection, context: string, options: StreamSettings = {}): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const common = {
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: DUPLICATE_WINDOW_MS * 1_000_000,
    num_replicas: options.replicas ?? 1,
  };
  // Limits left undefined keep what the stream has (an update merges), so a process given none
  // (e.g. a consumer of another context's stream) never lifts the limits its producer set.
  const limits: Partial<StreamConfig> = {};
  if (options.maxAgeMs !== undefined) limits.max_age = options.maxAgeMs * 1_000_000;
  if (options.maxBytes !== undefined) limits.max_bytes = options.maxBytes === 0 ? -1 : options.maxBytes;
  await upsertStream(jsm, { name: streamName(context), subjects: [contextSubjects(context)], ...common, ...limits });
  await ensureDeadLetterStreams(nc, options);
}

/**
 * The dead-letter stream (imprint.dlq.<consumer>) and the replay stream (imprint.replay.<consumer>,
 * a work queue each consumer also reads, so an operator can hand a dead letter back to it alone).
 */
export async function ensureDeadLetterStreams(nc: NatsConnection, options: { replicas?: number } = {}): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const common = {
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: DUPLICATE_WINDOW_MS * 1_000_000,
    num_replicas: options.replicas ?? 1,
  };
  await upsertStream(jsm, {
    name: DEAD_LETTER_STREAM,
    retention: RetentionPolicy.Limits,
    subjects: [`${DEAD_LETTER_SUBJECT_PREFIX}.>`],
    ...common,
    // Dead letters wait for an operator; keep them a month.
    max_age: 30 * 24 * 3600 * SECOND_NS,
  });
  await upsertStream(jsm, {
    name: REPLAY_STREAM,
    subjects: [`${REPLAY_SUBJECT_PREFIX}.>`],
    ...common,
    // A replayed event leaves once its consumer acknowledged it.
    retention: RetentionPolicy.Workqueue,
    max_age: 30 * 24 * 3600 * SECOND_NS,
  });
}
