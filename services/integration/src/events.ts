import type { EntityManager } from "@mikro-orm/postgresql";
import {
  InstallationCreated,
  InstallationDeleted,
  InstallationUpdated,
  IntegrationPublished,
  IntegrationUnpublished,
  TargetInstallationCreated,
  TargetInstallationDeleted,
  TargetInstallationUpdated,
} from "@imprint/proto/integration/v1/events";
import { contextEvents, recordEvent, type EventDefinition, type EventPayload } from "@imprint/runtime";
import type { CallerInput, UseCaseDeps } from "./deps.js";

/** Every integration event goes to the `IMPRINT_INTEGRATION` stream, subjects `imprint.integration.v1.<aggregate>.<event>`. */
export const INTEGRATION_EVENT_CONTEXT = "integration";

/**
 * The integration context's domain events, each payload a message of
 * `proto/imprint/integration/v1/events.proto` (listed in the event catalogue of
 * docs/architecture.md, which a test checks against these definitions).
 */
const integrationEvent = contextEvents(INTEGRATION_EVENT_CONTEXT);

export const integrationPublished = integrationEvent("integration", "published", IntegrationPublished);
export const integrationUnpublished = integrationEvent("integration", "unpublished", IntegrationUnpublished);
export const installationCreated = integrationEvent("installation", "created", InstallationCreated);
export const installationUpdated = integrationEvent("installation", "updated", InstallationUpdated);
export const installationDeleted = integrationEvent("installation", "deleted", InstallationDeleted);
export const targetInstallationCreated = integrationEvent("target_installation", "created", TargetInstallationCreated);
export const targetInstallationUpdated = integrationEvent("target_installation", "updated", TargetInstallationUpdated);
export const targetInstallationDeleted = integrationEvent("target_installation", "deleted", TargetInstallationDeleted);

/** Records an integration event of the organization in the current transaction (published by the relay after commit). */
export function recordIntegrationEvent<T>(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  definition: EventDefinition<T>,
  event: { organizationId: string; actor: CallerInput | null; payload: NoInfer<EventPayload<T>> },
): void {
  recordEvent(em, definition, { organizationId: event.organizationId, actor: event.actor, payload: event.payload, occurredAt: deps.clock() });
}
