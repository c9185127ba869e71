import { TranslationSettingsServiceService, type TranslationSettings as TranslationSettingsMessage } from "@imprint/proto/content/v1/translations";
import { forkEm, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { createTranslationSettings } from "../use-cases/create-translation-settings.js";
import { deleteTranslationSettings } from "../use-cases/delete-translation-settings.js";
import { getTranslationSettings } from "../use-cases/get-translation-settings.js";
import { listTranslationSettings } from "../use-cases/list-translation-settings.js";
import { updateTranslationSettings } from "../use-cases/update-translation-settings.js";
import type { TranslationSettingsView } from "../domain/views.js";
import type { ContentDeps } from "../../deps.js";

export const TRANSLATION_SETTINGS_SERVICE_NAME = "imprint.content.v1.TranslationSettingsService";

export function translationSettingsToProto({ settings, permissions }: TranslationSettingsView): TranslationSettingsMessage {
  return {
    id: settings.id,
    organizationId: settings.organizationId,
    title: settings.title,
    languages: settings.languages,
    createdAt: settings.createdAt,
    updatedAt: settings.updatedAt,
    permissions,
  };
}

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function translationSettingsServiceImplementation(deps: ContentDeps): AsyncImplementation<typeof TranslationSettingsServiceService> {
  const em = () => forkEm(deps.orm);
  return {
    listTranslationSettings: async (request) => {
      const page = await listTranslationSettings(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) },
        deps,
      );
      return { translationSettings: page.items.map(translationSettingsToProto), page: pageInfo(page) };
    },

    createTranslationSettings: async (request) => {
      const view = await createTranslationSettings(
        em(),
        { caller: request.caller, organizationId: request.organizationId, title: request.title, languages: request.languages },
        deps,
      );
      return { translationSettings: translationSettingsToProto(view) };
    },

    getTranslationSettings: async (request) => {
      const view = await getTranslationSettings(
        em(),
        { caller: request.caller, organizationId: request.organizationId, translationSettingsId: request.translationSettingsId },
        deps,
      );
      return { translationSettings: translationSettingsToProto(view) };
    },

    updateTranslationSettings: async (request) => {
      const view = await updateTranslationSettings(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          translationSettingsId: request.translationSettingsId,
          updateMask: request.updateMask,
          title: request.title,
          languages: request.languages,
        },
        deps,
      );
      return { translationSettings: translationSettingsToProto(view) };
    },

    deleteTranslationSettings: async (request) => {
      await deleteTranslationSettings(
        em(),
        { caller: request.caller, organizationId: request.organizationId, translationSettingsId: request.translationSettingsId },
        deps,
      );
      return {};
    },
  };
}
