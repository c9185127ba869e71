import { TranslationSettingsServiceService } from "@imprint/proto/content/v1/translations";
import type { ServiceRegistration } from "@imprint/runtime";
import { TRANSLATION_SETTINGS_SERVICE_NAME, translationSettingsServiceImplementation } from "./grpc/translation-settings-service.js";
import type { ContentDeps } from "../deps.js";

/** Translation settings of an organization: a title and target languages as BCP 47 tags. */

export { translationEntities } from "./domain/entities.js";
export { normalizeLanguageTag, validateLanguages } from "./domain/languages.js";
export { TRANSLATION_SETTINGS_SERVICE_NAME };

/** The gRPC service of translation settings (TranslationSettingsService). */
export function translationGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  return [
    {
      name: TRANSLATION_SETTINGS_SERVICE_NAME,
      definition: TranslationSettingsServiceService,
      implementation: translationSettingsServiceImplementation(deps),
    },
  ];
}
