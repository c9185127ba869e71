import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, findOwnedOrNull, requireCaller, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { IntegrationAsset } from "../../domain/asset.js";
import { Installation, TargetInstallation } from "../../domain/installation.js";
import { IntegrationEventRecord } from "../../domain/integration-event.js";
import { Integration } from "../../domain/integration.js";
import { installationDeleted, integrationUnpublished } from "../../events.js";
import { findOwnedIntegration } from "../shared/integrations.js";
import { revokeInstallationTokens } from "../shared/tokens.js";

/**
 * Deletes an integration: it is uninstalled everywhere (an `installation.deleted` each, their
 * tokens revoked), then removed with its events and images. False when there was none.
 */
export async function unpublishIntegration(em: EntityManager, input: { caller: CallerInput | undefined; name: string }, deps: UseCaseDeps): Promise<boolean> {
  const caller = requireCaller(input.caller);
  let integration;
  try {
    integration = await findOwnedIntegration(em, deps, caller, input.name, "unpublish it");
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return false;
    throw error;
  }
  const integrationId = integration.id;
  const installationIds = await deps.unitOfWork.run(em, async (tx) => {
    // The row lock makes a concurrent identical request wait, then find nothing and answer false.
    const locked = await findOwnedOrNull(tx, Integration, {}, integrationId, { lock: true });
    if (!locked) return null;
    const installations = await tx.find(Installation, { integrationId });
    for (const installation of installations) {
      recordEvent(tx, installationDeleted, {
        organizationId: installation.organizationId,
        actor: caller,
        payload: { installationId: installation.id, integrationName: integration.name },
      });
    }
    await tx.nativeDelete(TargetInstallation, { integrationId });
    await tx.nativeDelete(Installation, { integrationId });
    await tx.nativeDelete(IntegrationEventRecord, { integrationId });
    await tx.nativeDelete(IntegrationAsset, { integrationId });
    recordEvent(tx, integrationUnpublished, {
      organizationId: integration.ownerOrganizationId,
      actor: caller,
      payload: { integrationId, name: integration.name },
    });
    tx.remove(locked);
    return installations.map((installation) => installation.id);
  });
  if (!installationIds) return false;
  deps.renderLookups.forget(integration.name);
  await revokeInstallationTokens(deps, [...installationIds, integrationId]);
  return true;
}
