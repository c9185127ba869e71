import { eventSubject, type EventEnvelope } from "./envelope.js";

/**
 * What the runtime needs of an event's payload message, as ts-proto generates it into
 * `@imprint/proto/<context>/v1/events`: `fromPartial` fills in a producer's payload, `fromJSON`
 * reads a received one.
 */
export interface EventMessage<T> {
  // NoInfer: T is the message (what fromJSON gives), not ts-proto's DeepPartial of it.
  fromPartial(object: NoInfer<T>): T;
  fromJSON(object: unknown): T;
}

/** One event type of a context: where it is published and the message its payload is. */
export interface EventDefinition<T, Type extends string = string> {
  context: string;
  aggregate: string;
  event: string;
  /** "<aggregate>.<event>", the envelope's `type`. */
  type: Type;
  /** "imprint.<context>.v1.<aggregate>.<event>". */
  subject: string;
  message: EventMessage<T>;
  /** The message's fields (JSON names), in declaration order. */
  fields: readonly string[];
}

/**
 * A producer's payload: the message, where a field that may be unset may also be given as null.
 * Null is written as null (today's payloads say null where there is no value, e.g. a guest's role)
 * and read back as unset, as proto3 JSON reads it.
 */
export type EventPayload<T> = { [K in keyof T]: undefined extends T[K] ? T[K] | null : T[K] };

/** Defines an event type; the names become subject tokens and are checked as such. */
export function defineEvent<T, A extends string, E extends string>(definition: {
  context: string;
  aggregate: A;
  event: E;
  message: EventMessage<T>;
}): EventDefinition<T, `${A}.${E}`> {
  const { context, aggregate, event, message } = definition;
  return {
    context,
    aggregate,
    event,
    type: `${aggregate}.${event}`,
    subject: eventSubject(context, aggregate, event),
    message,
    // ts-proto's empty message has every field as a key (unset ones as undefined).
    fields: Object.keys(message.fromPartial({} as T) as object),
  };
}

/**
 * The definer of one context's events, so a service's events.ts names its context once:
 * `const contentEvent = contextEvents("content"); contentEvent("space", "created", SpaceCreated)`.
 */
export function contextEvents(context: string) {
  return <T, A extends string, E extends string>(aggregate: A, event: E, message: EventMessage<T>): EventDefinition<T, `${A}.${E}`> =>
    defineEvent({ context, aggregate, event, message });
}

/** Whether `value` is an event definition (the catalogue test collects a module's definitions). */
export function isEventDefinition(value: unknown): value is EventDefinition<unknown> {
  const candidate = value as Partial<EventDefinition<unknown>> | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.subject === "string" && typeof candidate.message?.fromJSON === "function";
}

/**
 * The JSON written for a payload, once, by the producer: every field of the message, defaults
 * included (`movedHead: false`, `parents: []`, counts of 0), and null where the producer said
 * null. ts-proto's `toJSON` would leave out defaults and unset fields, which would change what
 * readers of today's events receive; `fromJSON` reads either form.
 */
export function encodePayload<T>(definition: EventDefinition<T>, payload: EventPayload<T>): Record<string, unknown> {
  const message = { ...(definition.message.fromPartial(payload as T) as Record<string, unknown>) };
  const given = payload as Record<string, unknown>;
  for (const field of definition.fields) if (message[field] === undefined && given[field] === null) message[field] = null;
  // Through JSON: a Timestamp's Date becomes its ISO 8601 text, unset fields disappear.
  return JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
}

/**
 * Thrown by a consumer's handler for an event that can never succeed (an invalid event): the event
 * goes to the dead-letter stream at once. Any other error is taken as transient and retried,
 * with backoff, until it passes.
 */
export class PoisonEventError extends Error {
  override name = "PoisonEventError";
}

/**
 * A payload that does not decode as its message (a string where a number belongs, ...): handling
 * it again cannot help, so the consumer sends it to the dead-letter stream at once.
 */
export class UndecodablePayloadError extends PoisonEventError {
  override name = "UndecodablePayloadError";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Where the JSON a payload carries differs from what the generated decoder made of it. `fromJSON`
 * coerces ("5" becomes 5, "yes" true, a missing list []), so a value that does not survive the
 * round trip had the wrong type. Null is unset; fields the message does not know are ignored (a
 * newer producer may add some).
 */
function mismatch(json: unknown, decoded: unknown, path: string): string | undefined {
  if (json === null || json === undefined) return undefined;
  if (decoded instanceof Date) {
    return typeof json === "string" && Date.parse(json) === decoded.getTime() ? undefined : `${path} must be an ISO 8601 time`;
  }
  if (Array.isArray(decoded)) {
    if (!Array.isArray(json) || json.length !== decoded.length) return `${path} must be a list`;
    for (const [index, item] of json.entries()) {
      const problem = mismatch(item, decoded[index], `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isRecord(decoded)) {
    if (!isRecord(json)) return `${path} must be an object`;
    for (const [key, value] of Object.entries(json)) {
      if (!(key in decoded)) continue;
      const problem = mismatch(value, decoded[key], `${path}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return Object.is(json, decoded) ? undefined : `${path} must be a ${decoded === undefined ? "value of its field's type" : typeof decoded}`;
}

/** The envelope's payload as `message`; throws UndecodablePayloadError when its values have the wrong types. */
export function decodePayload<T>(message: EventMessage<T>, envelope: EventEnvelope): T {
  const decoded = message.fromJSON(envelope.payload);
  const problem = mismatch(envelope.payload, decoded, "payload");
  if (problem) throw new UndecodablePayloadError(`${envelope.type}: ${problem}`);
  return decoded;
}
