import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwnedOrNull } from "@imprint/runtime";
import { isId, requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { TranslationSettings } from "../domain/entities.js";
import { translationSettingsPermissions, type TranslationSettingsPermissions } from "../domain/permissions.js";
import type { AccessDeps } from "../../deps.js";

/** The caller's permissions on the organization's translation settings; non-members get "Organization not found". */
export async function requireTranslationsAccess(
  deps: AccessDeps,
  organizationId: string,
  caller: CallerInput | undefined,
): Promise<TranslationSettingsPermissions> {
  const membership = await requireOrganizationMembership(deps, organizationId, caller);
  return translationSettingsPermissions(membership);
}

export function requireTranslationsEditing(permissions: TranslationSettingsPermissions): void {
  if (!permissions.edit) throw AppError.permissionDenied(`You need the "createContent" permission in this organization`);
}

/** The settings if the caller can view them; another organization's, missing and malformed ids all answer null. */
export async function findVisibleTranslationSettings(
  em: EntityManager,
  permissions: TranslationSettingsPermissions,
  input: { organizationId: string; translationSettingsId: string; lock?: boolean },
): Promise<TranslationSettings | null> {
  if (!permissions.view || !isId(input.translationSettingsId)) return null;
  return findOwnedOrNull(em, TranslationSettings, { organizationId: input.organizationId }, input.translationSettingsId, { lock: input.lock });
}
