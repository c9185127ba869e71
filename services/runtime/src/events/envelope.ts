import { isId } from "../caller.js";

/** Who caused an event: the user, and the API token when the call was made with one. */
export interface Actor {
  userId: string;
  tokenId?: string;
}

/** What travels on NATS for every domain event (JSON). */
export interface EventEnvelope<P = Record<string, unknown>> {
  /** uuid v4, also the `Nats-Msg-Id`, so JetStream drops a republished event. */
  id: string;
  /** "<aggregate>.<event>", e.g. "member.added". */
  type: string;
  /** "imprint.<context>.v1.<aggregate>.<event>". */
  subject: string;
  /** ISO 8601. */
  occurredAt: string;
  organizationId: string | null;
  actor: Actor | null;
  payload: P;
}

/** One subject token: lower-case, no dots or wildcards, so subjects stay parseable and filterable. */
const NAME_TOKEN = /^[a-z][a-z0-9_-]*$/;

export const DEAD_LETTER_STREAM = "IMPRINT_DLQ";
export const DEAD_LETTER_SUBJECT_PREFIX = "imprint.dlq";
/** Where `events dead-letters replay` hands an event back to one consumer (see subscribe). */
export const REPLAY_STREAM = "IMPRINT_REPLAY";
export const REPLAY_SUBJECT_PREFIX = "imprint.replay";

export function assertNameToken(kind: string, value: string): void {
  if (!NAME_TOKEN.test(value)) {
    throw new Error(`${kind} "${value}" must match ${NAME_TOKEN.source} (lower-case, no dots or wildcards)`);
  }
}

/** JetStream stream holding every event of one bounded context. */
export function streamName(context: string): string {
  assertNameToken("context", context);
  return `IMPRINT_${context.toUpperCase().replace(/-/g, "_")}`;
}

/** Wildcard subject of every event of one context. */
export function contextSubjects(context: string): string {
  assertNameToken("context", context);
  return `imprint.${context}.v1.>`;
}

export function eventSubject(context: string, aggregate: string, event: string): string {
  assertNameToken("context", context);
  assertNameToken("aggregate", aggregate);
  assertNameToken("event", event);
  return `imprint.${context}.v1.${aggregate}.${event}`;
}

export function deadLetterSubject(consumer: string): string {
  return `${DEAD_LETTER_SUBJECT_PREFIX}.${consumer}`;
}

/** The subject a consumer also reads, on which a replayed dead letter comes back to it alone. */
export function replaySubject(consumer: string): string {
  return `${REPLAY_SUBJECT_PREFIX}.${consumer}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates an envelope received from NATS. Returns the problem instead of throwing, so the
 * consumer can send a malformed message straight to the dead-letter stream.
 */
export function parseEnvelope(data: Uint8Array): { envelope: EventEnvelope } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return { problem: "message body is not valid JSON" };
  }
  if (!isRecord(value)) return { problem: "envelope must be a JSON object" };
  const { id, type, subject, occurredAt, organizationId, actor, payload } = value;
  if (!isId(id)) return { problem: "envelope.id must be a uuid" };
  if (typeof type !== "string" || !/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/.test(type)) {
    return { problem: 'envelope.type must look like "<aggregate>.<event>"' };
  }
  if (typeof subject !== "string" || !subject.startsWith("imprint.")) return { problem: "envelope.subject must start with imprint." };
  if (typeof occurredAt !== "string" || Number.isNaN(Date.parse(occurredAt))) {
    return { problem: "envelope.occurredAt must be an ISO 8601 date" };
  }
  if (organizationId !== null && typeof organizationId !== "string") {
    return { problem: "envelope.organizationId must be a string or null" };
  }
  if (actor !== null && !(isRecord(actor) && typeof actor.userId === "string" && (actor.tokenId === undefined || typeof actor.tokenId === "string"))) {
    return { problem: "envelope.actor must be null or { userId, tokenId? }" };
  }
  if (!isRecord(payload)) return { problem: "envelope.payload must be a JSON object" };
  return {
    envelope: {
      id,
      type,
      subject,
      occurredAt,
      organizationId,
      actor: actor === null ? null : { userId: actor.userId as string, ...(typeof actor.tokenId === "string" ? { tokenId: actor.tokenId } : {}) },
      payload,
    },
  };
}
