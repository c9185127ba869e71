import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock, type EventDefinition, type RecordEventInput } from "@imprint/runtime";
import type { CallerInput } from "./access/index.js";

/**
 * The content events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/content/v1/events.proto` into `@imprint/proto/content/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/content/v1/event-contracts";

/** Records a content event in the current transaction (published by the relay after commit), at the clock's time. */
export function recordContentEvent<T>(
  em: EntityManager,
  deps: { clock: Clock },
  definition: EventDefinition<T>,
  event: Omit<RecordEventInput<T>, "occurredAt"> & { organizationId: string; actor: CallerInput | null },
): void {
  recordEvent(em, definition, { ...event, occurredAt: deps.clock() });
}
