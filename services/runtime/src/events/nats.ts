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
import { contextSubjects, DEAD_LETTER_STREAM, DEAD_LETTER_SUBJECT_PREFIX, streamName } from "./envelope.js";

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

/**
 * Creates or updates the stream of one context (IMPRINT_<CONTEXT> on imprint.<context>.v1.>) and
 * the shared dead-letter stream, with `replicas` copies (default 1; a clustered JetStream keeps up to
 * 5). Existing streams are updated to it, so every process must be given the same number. Only
 * nats-server 2.9 features are used.
 */
export async function ensureStream(nc: NatsConnection, context: string, options: { replicas?: number } = {}): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const common = {
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: DUPLICATE_WINDOW_MS * 1_000_000,
    num_replicas: options.replicas ?? 1,
  };
  await upsertStream(jsm, { name: streamName(context), subjects: [contextSubjects(context)], ...common });
  await upsertStream(jsm, {
    name: DEAD_LETTER_STREAM,
    subjects: [`${DEAD_LETTER_SUBJECT_PREFIX}.>`],
    ...common,
    // Dead letters wait for an operator; keep them a month.
    max_age: 30 * 24 * 3600 * SECOND_NS,
  });
}
