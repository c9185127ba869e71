import { defineEntity, p } from "@mikro-orm/postgresql";

export const TRANSLATION_TITLE_MAX = 128;
/** Languages per settings object, and characters per tag (BCP 47 tags with extensions can be long). */
export const TRANSLATION_LANGUAGES_MAX = 100;
export const LANGUAGE_TAG_MAX = 64;

/** An organization's translation settings: a title and the languages content is translated into. */
export const TranslationSettingsSchema = defineEntity({
  name: "TranslationSettings",
  tableName: "translation_settings",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    title: p.string().length(TRANSLATION_TITLE_MAX),
    /** BCP 47 tags in canonical case, without duplicates, in the order given. */
    languages: p.array().default([]),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ properties: ["organizationId", "createdAt", "id"], name: "translation_settings_organization_created_at_index" }],
});
export class TranslationSettings extends TranslationSettingsSchema.class {}
TranslationSettingsSchema.setClass(TranslationSettings);

export const translationEntities = [TranslationSettings];
