import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { findVisibleTranslationSettings, requireTranslationsAccess, requireTranslationsEditing } from "../store/access.js";
import { translationSettingsUpdated } from "../../events.js";
import { validateLanguages } from "../domain/languages.js";
import { validateTranslationTitle } from "../domain/validation.js";
import type { TranslationSettingsView } from "../domain/views.js";
import type { TranslationDeps } from "../../deps.js";

const UPDATABLE_FIELDS = ["title", "languages"] as const;

export interface UpdateTranslationSettingsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  translationSettingsId: string;
  updateMask: string[] | undefined;
  title: string;
  languages: readonly string[];
}

/** Changes the fields named in the mask; `languages` replaces the whole list. */
export async function updateTranslationSettings(
  em: EntityManager,
  input: UpdateTranslationSettingsInput,
  deps: TranslationDeps,
): Promise<TranslationSettingsView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const title = fields.has("title") ? validateTranslationTitle(input.title) : undefined;
  const languages = fields.has("languages") ? validateLanguages(input.languages) : undefined;
  const permissions = await requireTranslationsAccess(deps, input.organizationId, input.caller);
  const caller = input.caller!;
  const settings = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findVisibleTranslationSettings(tx, permissions, { ...input, lock: true });
    if (!found) throw AppError.notFound("Translation settings");
    requireTranslationsEditing(permissions);
    const changes = found.change({ title, languages }, deps.clock());
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, translationSettingsUpdated, {
        organizationId: found.organizationId,
        actor: caller,
        payload: { translationSettingsId: found.id, changedFields: Object.keys(changes), changes },
      });
    }
    return found;
  });
  return { settings, permissions };
}
