import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { findVisibleTranslationSettings, requireTranslationsAccess, requireTranslationsEditing } from "../store/access.js";
import { translationSettingsDeleted } from "../../events.js";
import type { TranslationDeps } from "../../deps.js";

export interface DeleteTranslationSettingsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  translationSettingsId: string;
}

/** Deletes translation settings; missing ones (or ones the caller cannot see) are "already gone". */
export async function deleteTranslationSettings(
  em: EntityManager,
  input: DeleteTranslationSettingsInput,
  deps: TranslationDeps,
): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const permissions = await requireTranslationsAccess(deps, input.organizationId, caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const settings = await findVisibleTranslationSettings(tx, permissions, { ...input, lock: true });
    if (!settings) return false;
    requireTranslationsEditing(permissions);
    tx.remove(settings);
    recordEvent(tx, translationSettingsDeleted, {
      organizationId: settings.organizationId,
      actor: caller,
      payload: { translationSettingsId: settings.id },
    });
    return true;
  });
  return { deleted };
}
