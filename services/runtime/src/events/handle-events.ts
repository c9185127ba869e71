import { decodePayload, type EventDefinition } from "./definitions.js";
import type { EventEnvelope } from "./envelope.js";
import type { EventHandler, EventHandlerContext } from "./subscribe.js";

/** An envelope of one of the definitions, its payload decoded with that definition's message. */
export type DecodedEvent<D> = D extends EventDefinition<infer T, infer Type> ? Omit<EventEnvelope, "type" | "payload"> & { type: Type; payload: T } : never;

/**
 * A consumer's handler for the events of `definitions` (matched by subject), each payload decoded
 * with its generated message; events of other types on the consumer's subjects are skipped. A
 * payload that does not decode goes to the dead-letter stream (UndecodablePayloadError).
 */
export function handleEvents<const D extends readonly EventDefinition<unknown>[]>(
  definitions: D,
  handler: (event: DecodedEvent<D[number]>, ctx: EventHandlerContext) => Promise<void>,
): EventHandler {
  const bySubject = new Map<string, EventDefinition<unknown>>(definitions.map((definition) => [definition.subject, definition]));
  return async (envelope, ctx) => {
    const definition = bySubject.get(envelope.subject);
    if (!definition) return;
    await handler({ ...envelope, type: definition.type, payload: decodePayload(definition.message, envelope) } as DecodedEvent<D[number]>, ctx);
  };
}
