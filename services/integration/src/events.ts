import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type EventDefinition, type EventPayload } from "@imprint/runtime";
import type { CallerInput, UseCaseDeps } from "./deps.js";

/** Every integration event goes to the `IMPRINT_INTEGRATION` stream, subjects `imprint.integration.v1.<aggregate>.<event>`. */
export const INTEGRATION_EVENT_CONTEXT = "integration";

/**
 * The integration events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/integration/v1/events.proto` into `@imprint/proto/integration/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/integration/v1/event-contracts";

/** Records an integration event of the organization in the current transaction (published by the relay after commit). */
export function recordIntegrationEvent<T>(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  definition: EventDefinition<T>,
  event: { organizationId: string; actor: CallerInput | null; payload: NoInfer<EventPayload<T>> },
): void {
  recordEvent(em, definition, { organizationId: event.organizationId, actor: event.actor, payload: event.payload, occurredAt: deps.clock() });
}
