import type { Integration } from "../../domain/integration.js";
import { checkInstallationConfiguration, missingRequiredProperties, type DeclaredConfiguration } from "../../domain/platform/configuration.js";

export type ConfigurationTarget = "account" | "space" | "site";

function declared(integration: Integration, target: ConfigurationTarget): DeclaredConfiguration | undefined {
  return (integration.configurations as Partial<Record<ConfigurationTarget, DeclaredConfiguration>>)[target];
}

/**
 * A configuration checked against what the integration declares for the target (400 naming the
 * property), defaults applied. Required properties may still be unset: the installation then stays
 * `pending` until they are.
 */
export function checkConfiguration(integration: Integration, target: ConfigurationTarget, configuration: Record<string, unknown>): Record<string, unknown> {
  return checkInstallationConfiguration(declared(integration, target), configuration, target, { allowMissingRequired: true });
}

/** Whether a required property is still unset: such an installation is `pending` until configured. */
export function missesRequired(integration: Integration, target: ConfigurationTarget, configuration: Record<string, unknown>): boolean {
  return missingRequiredProperties(declared(integration, target), configuration).length > 0;
}
