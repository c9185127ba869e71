import { headers as natsHeaders, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { isId } from "../caller.js";
import { DEAD_LETTER_STREAM, DEAD_LETTER_SUBJECT_PREFIX, parseEnvelope, REPLAY_STREAM, replaySubject, type EventEnvelope } from "./envelope.js";
import { ensureDeadLetterStreams, isStreamNotFound } from "./nats.js";

/** One message of the dead-letter stream, as the consumer that gave up on it wrote it. */
export interface DeadLetter {
  /** Its sequence in the dead-letter stream (IMPRINT_DLQ): what `show` and `replay` take. */
  sequence: number;
  /** The durable consumer that could not handle the event. */
  consumer: string;
  /** The event, or null for a message that was not an event envelope at all. */
  envelope: EventEnvelope | null;
  /** Why it was dead-lettered (the handler's error, or what is wrong with the envelope). */
  error: string;
  /** Deliveries of the event to that consumer, the last one included. */
  attempts: number;
  /** ISO 8601. */
  failedAt: string;
  /** Everything the dead letter holds (subject, stream and sequence of the original, raw body, ...). */
  record: Record<string, unknown>;
}

/** The dead letters to read; `consumer` keeps only that consumer's. */
export interface DeadLetterQuery {
  consumer?: string;
}

function decode(sequence: number, subject: string, data: Uint8Array): DeadLetter {
  let record: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(data));
    record = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { raw: value };
  } catch {
    record = { raw: new TextDecoder().decode(data) };
  }
  const parsed = record.envelope ? parseEnvelope(new TextEncoder().encode(JSON.stringify(record.envelope))) : undefined;
  const subjectConsumer = subject.slice(DEAD_LETTER_SUBJECT_PREFIX.length + 1);
  return {
    sequence,
    consumer: typeof record.consumer === "string" ? record.consumer : subjectConsumer,
    envelope: parsed && "envelope" in parsed ? parsed.envelope : null,
    error: typeof record.error === "string" ? record.error : "",
    attempts: typeof record.attempts === "number" ? record.attempts : 0,
    failedAt: typeof record.failedAt === "string" ? record.failedAt : "",
    record,
  };
}

async function manager(nc: NatsConnection): Promise<JetStreamManager> {
  return jetstreamManager(nc);
}

/** Every dead letter still in the stream (oldest first), or only those of `query.consumer`. */
export async function listDeadLetters(nc: NatsConnection, query: DeadLetterQuery = {}): Promise<DeadLetter[]> {
  const jsm = await manager(nc);
  let state;
  try {
    state = (await jsm.streams.info(DEAD_LETTER_STREAM)).state;
  } catch (error) {
    // No consumer ever ran against this NATS: nothing was dead-lettered.
    if (isStreamNotFound(error)) return [];
    throw error;
  }
  const letters: DeadLetter[] = [];
  if (state.messages === 0) return letters;
  for (let seq = state.first_seq; seq <= state.last_seq && letters.length < state.messages; seq += 1) {
    // A gap: a dead letter replayed or discarded before.
    const stored = await jsm.streams.getMessage(DEAD_LETTER_STREAM, { seq }).catch(() => null);
    if (!stored) continue;
    const letter = decode(stored.seq, stored.subject, stored.data);
    if (query.consumer === undefined || letter.consumer === query.consumer) letters.push(letter);
  }
  return letters;
}

/**
 * The dead letters `ref` names: a dead-letter sequence number, or an event id (one per consumer
 * that dead-lettered the event; `query.consumer` picks one).
 */
export async function findDeadLetters(nc: NatsConnection, ref: string, query: DeadLetterQuery = {}): Promise<DeadLetter[]> {
  const letters = await listDeadLetters(nc, query);
  if (/^\d+$/.test(ref)) return letters.filter((letter) => letter.sequence === Number(ref));
  if (isId(ref)) return letters.filter((letter) => letter.envelope?.id === ref);
  return [];
}

/** Why a dead letter cannot be replayed (it holds no event), or null when it can. */
export function unreplayable(letter: DeadLetter): string | null {
  return letter.envelope ? null : `dead letter ${letter.sequence} holds no event (${letter.error || "not an event envelope"}): nothing to replay; discard it`;
}

/**
 * Hands a dead letter's event back to the consumer that gave up on it, and only to it: the event
 * is published on `imprint.replay.<consumer>` (a work queue that consumer also reads), keeping
 * its event id, so the consumer's once-per-event record still holds (the failed attempts recorded
 * nothing) and no other consumer sees it again. The dead letter is then removed. Publishing is
 * deduplicated per dead letter, so running a replay twice hands the event back once.
 */
export async function replayDeadLetter(nc: NatsConnection, letter: DeadLetter): Promise<void> {
  const problem = unreplayable(letter);
  if (problem) throw new Error(problem);
  await ensureDeadLetterStreams(nc);
  const headers = natsHeaders();
  headers.set("Nats-Msg-Id", `replay:${letter.consumer}:${letter.sequence}`);
  await jetstream(nc).publish(replaySubject(letter.consumer), JSON.stringify(letter.envelope), {
    headers,
    expect: { streamName: REPLAY_STREAM },
  });
  await discardDeadLetter(nc, letter);
}

/** Removes a dead letter without replaying it (e.g. a message that was never an event). */
export async function discardDeadLetter(nc: NatsConnection, letter: DeadLetter): Promise<void> {
  await (await manager(nc)).streams.deleteMessage(DEAD_LETTER_STREAM, letter.sequence, false);
}
