import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

export const INSTALLATION_STATUSES = ["active", "pending", "paused"] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];
export const SELECTIONS = ["all", "selected"] as const;
export type Selection = (typeof SELECTIONS)[number];
export type TargetKind = "space" | "site";

/** GitBook's IntegrationInstallationExternalIds: at most 5. */
export const EXTERNAL_IDS_MAX = 5;
const EXTERNAL_ID_MAX_LENGTH = 256;

/**
 * An integration installed on an organization (GitBook's account-level installation): its
 * configuration, external ids, which spaces and sites it applies to, and the secret that signs
 * requests made for it. One per integration and organization.
 */
export const InstallationSchema = defineEntity({
  name: "Installation",
  tableName: "installations",
  properties: {
    id: p.uuid().primary(),
    integrationId: p.uuid(),
    organizationId: p.uuid().index(),
    status: p.string().length(16),
    configuration: p.json<Record<string, unknown>>(),
    externalIds: p.array(),
    spaceSelection: p.string().length(16),
    siteSelection: p.string().length(16),
    signingSecret: p.string().length(64),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ properties: ["integrationId", "organizationId"], name: "installations_integration_organization_unique" }],
  indexes: [{ properties: ["integrationId", "createdAt", "id"], name: "installations_integration_created_at_index" }],
});
export class Installation extends InstallationSchema.class {}
InstallationSchema.setClass(Installation);

/** An integration installed on one space or one site of an installation's organization. */
export const TargetInstallationSchema = defineEntity({
  name: "TargetInstallation",
  tableName: "target_installations",
  properties: {
    id: p.uuid().primary(),
    installationId: p.uuid(),
    integrationId: p.uuid(),
    organizationId: p.uuid(),
    kind: p.string().length(8),
    targetId: p.uuid(),
    status: p.string().length(16),
    configuration: p.json<Record<string, unknown>>(),
    externalIds: p.array(),
    signingSecret: p.string().length(64),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ properties: ["installationId", "kind", "targetId"], name: "target_installations_installation_target_unique" }],
  indexes: [
    { properties: ["integrationId", "kind", "createdAt", "id"], name: "target_installations_integration_kind_index" },
    { properties: ["kind", "targetId"], name: "target_installations_target_index" },
  ],
});
export class TargetInstallation extends TargetInstallationSchema.class {}
TargetInstallationSchema.setClass(TargetInstallation);

export function checkExternalIds(field: string, ids: string[]): string[] {
  if (ids.length > EXTERNAL_IDS_MAX) throw AppError.invalidArgument(`${field}: must have at most ${EXTERNAL_IDS_MAX} entries`);
  ids.forEach((id, index) => {
    if (id.length === 0 || id.length > EXTERNAL_ID_MAX_LENGTH)
      throw AppError.invalidArgument(`${field}[${index}]: must be 1 to ${EXTERNAL_ID_MAX_LENGTH} characters`);
  });
  return [...new Set(ids)];
}

export function checkSelection(field: string, value: string): Selection {
  if (!(SELECTIONS as readonly string[]).includes(value)) throw AppError.invalidArgument(`${field}: must be all or selected`);
  return value as Selection;
}

/** An installation is pending until every configuration property its integration requires is set. */
export function statusFor(missingRequired: boolean): InstallationStatus {
  return missingRequired ? "pending" : "active";
}
