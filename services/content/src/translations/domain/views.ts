import type { TranslationSettings } from "./entities.js";
import type { TranslationSettingsPermissions } from "./permissions.js";

export interface TranslationSettingsView {
  settings: TranslationSettings;
  permissions: TranslationSettingsPermissions;
}
