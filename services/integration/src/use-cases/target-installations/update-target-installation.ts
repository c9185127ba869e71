import type { EntityManager } from "@mikro-orm/postgresql";
import { parseUpdateMask, requireCaller, type CallerInput, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { checkExternalIds, type TargetInstallation, type TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { targetInstallationUpdated } from "../../events.js";
import { checkConfiguration } from "../shared/configuration.js";
import { wakeDelivery } from "../shared/deliveries.js";
import { findInstallation, findTargetInstallation } from "../shared/installations.js";
import { parseJsonObject } from "../shared/json.js";
import { recordTargetSetup, targetStatus } from "../shared/targets.js";

export interface UpdateTargetInstallationInput {
  caller: CallerInput | undefined;
  name: string;
  installationId: string;
  kind: TargetKind;
  targetId: string;
  /** Field paths, snake_case or camelCase; empty: no field changes, the status settles again. */
  updateMask: string[];
  /** A JSON object; empty text clears the configuration. */
  configurationJson: string;
  externalIds: string[];
}

const UPDATABLE_FIELDS = ["configuration_json", "external_ids"] as const;

/** Changes the masked fields of a space or site installation, its configuration (checked against the declared one) or external ids; the integration hears `*_installation_setup` with the previous state. */
export async function updateTargetInstallation(
  em: EntityManager,
  input: UpdateTargetInstallationInput,
  deps: UseCaseDeps,
): Promise<{ integration: Integration; target: TargetInstallation }> {
  const caller = requireCaller(input.caller);
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const newConfiguration = fields.has("configuration_json") ? parseJsonObject("configuration", input.configurationJson) : undefined;
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  const target = await findTargetInstallation(em, installation, input.kind, input.targetId);
  const configuration = newConfiguration === undefined ? undefined : checkConfiguration(integration, input.kind, newConfiguration);
  const externalIds = fields.has("external_ids") ? checkExternalIds("externalIds", input.externalIds) : undefined;
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
    recordEvent(tx, targetInstallationUpdated, {
      organizationId: target.organizationId,
      actor: caller,
      payload: {
        installationId: installation.id,
        integrationName: integration.name,
        kind: target.kind,
        targetId: target.targetId,
        changedFields: changed,
        status,
      },
    });
    recordTargetSetup(
      tx,
      deps,
      integration,
      target,
      previous,
      `target_installation.updated:${target.id}:${target.updatedAt.toISOString()}:${changed.join(",")}`,
    );
  });
  deps.renderLookups.forget(integration.name);
  wakeDelivery(deps);
  return { integration, target };
}
