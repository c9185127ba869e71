import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { requireTranslationsAccess } from "../store/access.js";
import { TranslationSettings } from "../domain/entities.js";
import type { TranslationSettingsView } from "../domain/views.js";
import type { TranslationDeps } from "../../deps.js";

export interface ListTranslationSettingsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
}

/** The organization's translation settings, oldest first; guests see none. */
export async function listTranslationSettings(
  em: EntityManager,
  input: ListTranslationSettingsInput,
  deps: TranslationDeps,
): Promise<Page<TranslationSettingsView>> {
  const permissions = await requireTranslationsAccess(deps, input.organizationId, input.caller);
  const where = permissions.view ? { organizationId: input.organizationId } : { id: { $in: [] } };
  const page = await findPage(em, TranslationSettings, where, { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] }, input.page);
  return { ...page, items: page.items.map((settings) => ({ settings, permissions })) };
}
