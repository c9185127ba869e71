/**
 * What every generated event contract (`@imprint/proto/<context>/v1/event-contracts`, from the
 * `option (imprint.common.v1.event)` of each message of events.proto) is: where the event is
 * published, what orders it, and the message its payload is. The runtime records and reads events
 * by these (its `EventDefinition` is this type).
 */

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

/** One event type of a context: where it is published, what orders it, and the message its payload is. */
export interface EventContract<T, Type extends string = string> {
  context: string;
  aggregate: string;
  event: string;
  /** "<aggregate>.<event>", the envelope's `type`. */
  type: Type;
  /** "imprint.<context>.v1.<aggregate>.<event>". */
  subject: string;
  /**
   * The payload field (its JSON name) holding the id of the aggregate whose events are handled in
   * order, e.g. "spaceId"; null when that is the envelope's organization.
   */
  orderingKey: string | null;
  message: EventMessage<T>;
  /** The message's fields (JSON names), in declaration order. */
  fields: readonly string[];
}

/** A contract from its declaration; the message's fields are read from the message itself. */
export function eventContract<T, const Type extends string>(declaration: Omit<EventContract<T, Type>, "fields">): EventContract<T, Type> {
  // ts-proto's empty message has every field as a key (unset ones as undefined).
  return { ...declaration, fields: Object.keys(declaration.message.fromPartial({} as T) as object) };
}
