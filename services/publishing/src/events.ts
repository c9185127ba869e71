import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type EventDefinition, type EventPayload } from "@imprint/runtime";
import type { CallerInput, UseCaseDeps } from "./deps.js";

/** Every publishing event goes to the `IMPRINT_PUBLISHING` stream, subjects `imprint.publishing.v1.<aggregate>.<event>`. */
export const PUBLISHING_EVENT_CONTEXT = "publishing";

/**
 * The publishing events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/publishing/v1/events.proto` into `@imprint/proto/publishing/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/publishing/v1/event-contracts";

/** Records a publishing event of the organization in the current transaction (published by the relay after commit). */
export function recordPublishingEvent<T>(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  definition: EventDefinition<T>,
  event: { organizationId: string; actor: CallerInput | null; payload: NoInfer<EventPayload<T>> },
): void {
  recordEvent(em, definition, { organizationId: event.organizationId, actor: event.actor, payload: event.payload, occurredAt: deps.clock() });
}
