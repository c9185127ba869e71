import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, findOwnedOrNull, requireCaller, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { TargetInstallation, type TargetKind } from "../../domain/installation.js";
import { targetInstallationDeleted } from "../../events.js";
import { wakeDelivery } from "../shared/deliveries.js";
import { findInstallation, findTargetInstallation } from "../shared/installations.js";
import { recordTargetDeleted } from "../shared/targets.js";

/** Uninstalls an integration from a space or a site; the integration hears `*_installation_deleted`. False when it was not installed there. */
export async function uninstallFromTarget(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; installationId: string; kind: TargetKind; targetId: string },
  deps: UseCaseDeps,
): Promise<boolean> {
  const caller = requireCaller(input.caller);
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  let target;
  try {
    target = await findTargetInstallation(em, installation, input.kind, input.targetId);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return false;
    throw error;
  }
  const removed = await deps.unitOfWork.run(em, async (tx) => {
    // The row lock makes a concurrent identical request wait, then find nothing and answer false.
    const locked = await findOwnedOrNull(tx, TargetInstallation, {}, target.id, { lock: true });
    if (!locked) return false;
    recordEvent(tx, targetInstallationDeleted, {
      organizationId: target.organizationId,
      actor: caller,
      payload: { installationId: installation.id, integrationName: integration.name, kind: target.kind, targetId: target.targetId },
    });
    recordTargetDeleted(tx, deps, integration.id, target, `target_installation.deleted:${target.id}`);
    tx.remove(locked);
    return true;
  });
  if (removed) {
    deps.renderLookups.forget(integration.name);
    wakeDelivery(deps);
  }
  return removed;
}
