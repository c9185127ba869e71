import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { findVisibleTranslationSettings, requireTranslationsAccess } from "../store/access.js";
import type { TranslationSettingsView } from "../domain/views.js";
import type { TranslationDeps } from "../../deps.js";

export interface GetTranslationSettingsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  translationSettingsId: string;
}

export async function getTranslationSettings(em: EntityManager, input: GetTranslationSettingsInput, deps: TranslationDeps): Promise<TranslationSettingsView> {
  const permissions = await requireTranslationsAccess(deps, input.organizationId, input.caller);
  const settings = await findVisibleTranslationSettings(em, permissions, input);
  if (!settings) throw AppError.notFound("Translation settings");
  return { settings, permissions };
}
