import { eventContract, type EventContract, type EventMessage } from "@imprint/proto/event-contract";
import { eventSubject, type EventEnvelope } from "./envelope.js";

/**
 * One event type of a context: where it is published, what orders it, and the message its payload
 * is. A service's come from its events.proto, generated into
 * `@imprint/proto/<context>/v1/event-contracts`: the producer records it, the consumers read it.
 */
export type EventDefinition<T, Type extends string = string> = EventContract<T, Type>;
export type { EventMessage };

/**
 * A producer's payload: the message, where a field that may be unset may also be given as null.
 * Null is written as null (today's payloads say null where there is no value, e.g. a guest's role)
 * and read back as unset, as proto3 JSON reads it.
 */
export type EventPayload<T> = { [K in keyof T]: undefined extends T[K] ? T[K] | null : T[K] };

/**
 * Defines an event type outside events.proto (the runtime's tests, which know no protos); the
 * names become subject tokens and are checked as such. Without `orderingKey`, the organization.
 */
export function defineEvent<T, A extends string, E extends string>(definition: {
  context: string;
  aggregate: A;
  event: E;
  message: EventMessage<T>;
  orderingKey?: string;
}): EventDefinition<T, `${A}.${E}`> {
  const { context, aggregate, event, message } = definition;
  return eventContract({
    context,
    aggregate,
    event,
    type: `${aggregate}.${event}`,
    subject: eventSubject(context, aggregate, event),
    orderingKey: definition.orderingKey ?? null,
    message,
  });
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
