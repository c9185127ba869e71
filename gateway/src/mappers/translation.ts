import type { TranslationSettings } from "@imprint/proto/content/v1/translations";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";

/** Translation settings as interface.md describes them (GitBook's current document has another resource here). */
export interface RestTranslationSettings {
  object: "translation-settings";
  id: string;
  title: string;
  languages: string[];
  createdAt: string;
  updatedAt: string;
  permissions: { view: boolean; edit: boolean };
  urls: { location: string };
}

/** API URL of translation settings (also their `Location` when created). */
export function translationSettingsLocation(urls: PublicUrls, organizationId: string, translationSettingsId: string): string {
  return `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/translations/${encodeURIComponent(translationSettingsId)}`;
}

export function toRestTranslationSettings(settings: TranslationSettings | undefined, urls: PublicUrls): RestTranslationSettings {
  if (!settings) throw new AppError("internal", "upstream answered without translation settings");
  return {
    object: "translation-settings",
    id: settings.id,
    title: settings.title,
    languages: [...settings.languages],
    createdAt: (settings.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (settings.updatedAt ?? new Date(0)).toISOString(),
    permissions: { view: settings.permissions?.view ?? false, edit: settings.permissions?.edit ?? false },
    urls: { location: translationSettingsLocation(urls, settings.organizationId, settings.id) },
  };
}
