import type { EntityManager } from "@mikro-orm/postgresql";
import { parseUpdateMask, recordEvent, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { checkExternalIds, checkSelection, statusFor, type Installation, type InstallationStatus } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { installationSetupEvent } from "../../domain/platform/events.js";
import { installationUpdated } from "../../events.js";
import { checkConfiguration, missesRequired } from "../shared/configuration.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { findInstallation } from "../shared/installations.js";
import { parseJsonObject } from "../shared/json.js";

const UPDATABLE_FIELDS = ["configuration_json", "external_ids", "space_selection", "site_selection"] as const;

export interface UpdateInstallationInput {
  caller: CallerInput | undefined;
  name: string;
  installationId: string;
  /** Field paths, snake_case or camelCase; empty: no field changes, the status settles again. */
  updateMask: string[];
  /** A JSON object; empty text clears the configuration. */
  configurationJson: string;
  externalIds: string[];
  spaceSelection: string;
  siteSelection: string;
}

/**
 * Changes the masked fields of an installation. A new configuration is checked against the integration's declared
 * account configuration (400 naming the property) and settles the status; the integration hears
 * `installation_setup` with the previous status and configuration.
 */
export async function updateInstallation(
  em: EntityManager,
  input: UpdateInstallationInput,
  deps: UseCaseDeps,
): Promise<{ integration: Integration; installation: Installation }> {
  const caller = requireCaller(input.caller);
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const newConfiguration = fields.has("configuration_json") ? parseJsonObject("configuration", input.configurationJson) : undefined;
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  const configuration = newConfiguration === undefined ? undefined : checkConfiguration(integration, "account", newConfiguration);
  const externalIds = fields.has("external_ids") ? checkExternalIds("externalIds", input.externalIds) : undefined;
  const spaceSelection = fields.has("space_selection") ? checkSelection("space_selection", input.spaceSelection) : undefined;
  const siteSelection = fields.has("site_selection") ? checkSelection("site_selection", input.siteSelection) : undefined;

  await deps.unitOfWork.run(em, async (tx) => {
    const previous = { status: installation.status as InstallationStatus, configuration: installation.configuration };
    const changed: string[] = [];
    if (configuration !== undefined) {
      installation.configuration = configuration;
      changed.push("configuration");
    }
    if (externalIds !== undefined) {
      installation.externalIds = externalIds;
      changed.push("externalIds");
    }
    if (spaceSelection !== undefined && spaceSelection !== installation.spaceSelection) {
      installation.spaceSelection = spaceSelection;
      changed.push("space_selection");
    }
    if (siteSelection !== undefined && siteSelection !== installation.siteSelection) {
      installation.siteSelection = siteSelection;
      changed.push("site_selection");
    }
    const status = statusFor(missesRequired(integration, "account", installation.configuration));
    if (status !== installation.status) {
      installation.status = status;
      changed.push("status");
    }
    if (changed.length === 0) return;
    installation.updatedAt = deps.clock();
    tx.persist(installation);
    recordEvent(tx, installationUpdated, {
      organizationId: installation.organizationId,
      actor: caller,
      payload: { installationId: installation.id, integrationName: integration.name, changedFields: changed, status },
    });
    recordDelivery(tx, deps, {
      integrationId: integration.id,
      installationId: installation.id,
      organizationId: installation.organizationId,
      targetInstallationId: null,
      type: "installation_setup",
      payload: (eventId) => installationSetupEvent({ eventId, installationId: installation.id, status, previous }),
      sourceKey: `installation.updated:${installation.id}:${installation.updatedAt.toISOString()}:${changed.join(",")}`,
    });
  });
  deps.renderLookups.forget(integration.name);
  wakeDelivery(deps);
  return { integration, installation };
}
