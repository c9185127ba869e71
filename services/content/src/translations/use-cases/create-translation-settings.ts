import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { requireTranslationsAccess, requireTranslationsEditing } from "../store/access.js";
import { TranslationSettings } from "../domain/entities.js";
import { translationSettingsCreated } from "../../events.js";
import { validateLanguages } from "../domain/languages.js";
import { validateTranslationTitle } from "../domain/validation.js";
import type { TranslationSettingsView } from "../domain/views.js";
import type { TranslationDeps } from "../../deps.js";

export interface CreateTranslationSettingsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  title: string;
  languages: readonly string[];
}

export async function createTranslationSettings(
  em: EntityManager,
  input: CreateTranslationSettingsInput,
  deps: TranslationDeps,
): Promise<TranslationSettingsView> {
  const title = validateTranslationTitle(input.title);
  const languages = validateLanguages(input.languages);
  const permissions = await requireTranslationsAccess(deps, input.organizationId, input.caller);
  requireTranslationsEditing(permissions);
  const caller = input.caller!;
  const settings = await deps.unitOfWork.run(em, (tx) => {
    const now = deps.clock();
    const created = tx.create(TranslationSettings, { organizationId: input.organizationId, title, languages, createdAt: now, updatedAt: now });
    recordEvent(tx, translationSettingsCreated, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { translationSettingsId: created.id, title, languages },
    });
    return Promise.resolve(created);
  });
  return { settings, permissions };
}
