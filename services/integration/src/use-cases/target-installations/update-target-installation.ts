import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { checkExternalIds, type TargetInstallation, type TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { recordIntegrationEvent, targetInstallationUpdated } from "../../events.js";
import { checkConfiguration } from "../shared/configuration.js";
import { wakeDelivery } from "../shared/deliveries.js";
import { findInstallation, findTargetInstallation } from "../shared/installations.js";
import { recordTargetSetup, targetStatus } from "../shared/targets.js";

export interface UpdateTargetInstallationInput {
  caller: CallerInput | undefined;
  name: string;
  installationId: string;
  kind: TargetKind;
  targetId: string;
  configuration: Record<string, unknown> | undefined;
  externalIds: string[] | undefined;
}

/** Changes a space or site installation's configuration (checked against the declared one) or external ids; the integration hears `*_installation_setup` with the previous state. */
export async function updateTargetInstallation(em: EntityManager, input: UpdateTargetInstallationInput, deps: UseCaseDeps): Promise<{ integration: Integration; target: TargetInstallation }> {
  const caller = requireCaller(input.caller);
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  const target = await findTargetInstallation(em, installation, input.kind, input.targetId);
  const configuration = input.configuration === undefined ? undefined : checkConfiguration(integration, input.kind, input.configuration);
  const externalIds = input.externalIds === undefined ? undefined : checkExternalIds("externalIds", input.externalIds);
  await deps.unitOfWork.run(em, async (tx) => {
    const previous = { status: target.status, configuration: target.configuration };
    const changed: string[] = [];
    if (configuration !== undefined) {
      target.configuration = configuration;
      changed.push("configuration");
    }
    if (externalIds !== undefined) {
      target.externalIds = externalIds;
      changed.push("externalIds");
    }
    const status = targetStatus(integration, input.kind, target.configuration);
    if (status !== target.status) {
      target.status = status;
      changed.push("status");
    }
    if (changed.length === 0) return;
    target.updatedAt = deps.clock();
    tx.persist(target);
    recordIntegrationEvent(tx, deps, targetInstallationUpdated, {
      organizationId: target.organizationId,
      actor: caller,
      payload: { installationId: installation.id, integrationName: integration.name, kind: target.kind, targetId: target.targetId, changedFields: changed, status },
    });
    recordTargetSetup(tx, deps, integration, target, previous, `target_installation.updated:${target.id}:${target.updatedAt.toISOString()}:${changed.join(",")}`);
  });
  wakeDelivery(deps);
  return { integration, target };
}
