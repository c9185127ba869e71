import { decodePayload, type EventDefinition } from "./definitions.js";
import type { EventEnvelope } from "./envelope.js";
import type { EventHandler, EventHandlerContext } from "./subscribe.js";

/** An envelope of one of the definitions, its payload decoded with that definition's message. */
export type DecodedEvent<D> = D extends EventDefinition<infer T, infer Type> ? Omit<EventEnvelope, "type" | "payload"> & { type: Type; payload: T } : never;

/**
 * Reads an envelope as one of `definitions` (matched by subject): undefined for an event of another
 * type, the decoded event otherwise; throws UndecodablePayloadError when the payload does not decode.
 */
export function eventDecoder<const D extends readonly EventDefinition<unknown>[]>(
  definitions: D,
): (envelope: EventEnvelope) => DecodedEvent<D[number]> | undefined {
  const bySubject = new Map<string, EventDefinition<unknown>>(definitions.map((definition) => [definition.subject, definition]));
  return (envelope) => {
    const definition = bySubject.get(envelope.subject);
    if (!definition) return undefined;
    return { ...envelope, type: definition.type, payload: decodePayload(definition.message, envelope) } as DecodedEvent<D[number]>;
  };
}

/**
 * A consumer's handler for the events of `definitions` (matched by subject), each payload decoded
 * with its generated message; events of other types on the consumer's subjects are skipped. A
 * payload that does not decode goes to the dead-letter stream (UndecodablePayloadError).
 */
export function handleEvents<const D extends readonly EventDefinition<unknown>[]>(
  definitions: D,
  handler: (event: DecodedEvent<D[number]>, ctx: EventHandlerContext) => Promise<void>,
): EventHandler {
  const decode = eventDecoder(definitions);
  return async (envelope, ctx) => {
    const event = decode(envelope);
    if (event) await handler(event, ctx);
  };
}
