import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, findOwnedOrNull, requireCaller, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation } from "../../domain/installation.js";
import { installationDeletedEvent } from "../../domain/platform/events.js";
import { installationDeleted } from "../../events.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { findInstallation } from "../shared/installations.js";
import { revokeInstallationTokens } from "../shared/tokens.js";

/**
 * Uninstalls an integration from an organization with its space and site installations; its
 * tokens are revoked and the integration hears `installation_deleted`. False when there was none.
 */
export async function uninstall(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; installationId: string },
  deps: UseCaseDeps,
): Promise<boolean> {
  const caller = requireCaller(input.caller);
  let found;
  try {
    found = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return false;
    throw error;
  }
  const { integration, installation } = found;
  const removed = await deps.unitOfWork.run(em, async (tx) => {
    // The row lock makes a concurrent identical request wait, then find nothing and answer false.
    const locked = await findOwnedOrNull(tx, Installation, {}, installation.id, { lock: true });
    if (!locked) return false;
    await tx.nativeDelete(TargetInstallation, { installationId: installation.id });
    recordEvent(tx, installationDeleted, {
      organizationId: installation.organizationId,
      actor: caller,
      payload: { installationId: installation.id, integrationName: integration.name },
    });
    recordDelivery(tx, deps, {
      integrationId: integration.id,
      installationId: installation.id,
      organizationId: installation.organizationId,
      targetInstallationId: null,
      type: "installation_deleted",
      payload: (eventId) => installationDeletedEvent({ eventId, installationId: installation.id, previous: { configuration: locked.configuration } }),
      sourceKey: `installation.deleted:${installation.id}`,
    });
    tx.remove(locked);
    return true;
  });
  if (!removed) return false;
  deps.renderLookups.forget(integration.name);
  await revokeInstallationTokens(deps, [installation.id]);
  wakeDelivery(deps);
  return true;
}
