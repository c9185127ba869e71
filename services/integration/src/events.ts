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
import { contextEvents } from "@imprint/runtime";

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
