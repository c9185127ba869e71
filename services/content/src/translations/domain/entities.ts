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
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    title: p.string().length(TRANSLATION_TITLE_MAX),
    /** BCP 47 tags in canonical case, without duplicates, in the order given. */
    languages: p.array().default([]),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ properties: ["organizationId", "createdAt", "id"], name: "translation_settings_organization_created_at_index" }],
});
/** What an update changed: each field's value before and after. */
export type TranslationSettingsChanges = Partial<Record<"title" | "languages", { from: unknown; to: unknown }>>;

export class TranslationSettings extends TranslationSettingsSchema.class {
  /**
   * Applies the given (already validated) fields at `now` and answers what changed; a field equal
   * to the stored one is no change, and nothing changed leaves `updatedAt` as it was.
   */
  change(update: { title?: string | undefined; languages?: string[] | undefined }, now: Date): TranslationSettingsChanges {
    const changes: TranslationSettingsChanges = {};
    if (update.title !== undefined && update.title !== this.title) {
      changes.title = { from: this.title, to: update.title };
      this.title = update.title;
    }
    if (update.languages !== undefined && update.languages.join("\n") !== this.languages.join("\n")) {
      changes.languages = { from: this.languages, to: update.languages };
      this.languages = update.languages;
    }
    if (Object.keys(changes).length > 0) this.updatedAt = now;
    return changes;
  }
}
TranslationSettingsSchema.setClass(TranslationSettings);

export const translationEntities = [TranslationSettings];
