import { AppError } from "@imprint/runtime";
import { parse, stringify, type Schema } from "bcp-47";
import { LANGUAGE_TAG_MAX, TRANSLATION_LANGUAGES_MAX } from "./entities.js";

/**
 * A BCP 47 tag in the case RFC 5646 recommends: language and extensions lower-case, script
 * title-case (`Hant`), region upper-case (`BR`, `419`). Legacy tags (`i-klingon`) become their
 * preferred value (`tlh`).
 */
function canonicalCase(schema: Schema): string {
  return stringify({
    ...schema,
    language: schema.language?.toLowerCase() ?? null,
    extendedLanguageSubtags: schema.extendedLanguageSubtags.map((subtag) => subtag.toLowerCase()),
    script: schema.script ? schema.script.charAt(0).toUpperCase() + schema.script.slice(1).toLowerCase() : null,
    region: schema.region?.toUpperCase() ?? null,
    variants: schema.variants.map((variant) => variant.toLowerCase()),
    extensions: schema.extensions.map((extension) => ({
      singleton: extension.singleton.toLowerCase(),
      extensions: extension.extensions.map((subtag) => subtag.toLowerCase()),
    })),
    privateuse: schema.privateuse.map((subtag) => subtag.toLowerCase()),
    irregular: schema.irregular,
    regular: schema.regular,
  });
}

/** The tag in canonical case, or why it is not a BCP 47 language tag. */
export function normalizeLanguageTag(tag: string): { tag: string } | { problem: string } {
  if (tag.trim() !== tag || tag === "") return { problem: "must be a BCP 47 language tag (e.g. fr, pt-BR)" };
  if (tag.length > LANGUAGE_TAG_MAX) return { problem: `must be at most ${LANGUAGE_TAG_MAX} characters` };
  let reason: string | undefined;
  const schema = parse(tag, {
    warning: (message) => {
      reason ??= message;
      return undefined;
    },
  });
  // An empty schema means the parser rejected the tag; a tag of private-use subtags alone
  // (x-...) names no language.
  if (reason || !schema.language) {
    return { problem: `"${tag}" is not a BCP 47 language tag${reason ? ` (${reason.replace(/\.$/, "").toLowerCase()})` : ""}` };
  }
  // 4 letters are reserved and 5 to 8 letters allowed for future registrations, none made so far:
  // such a "language" is a name ("english") rather than a code.
  if (schema.language.length > 3) {
    return { problem: `"${tag}" is not a BCP 47 language tag (its language subtag "${schema.language}" must be a 2 or 3 letter ISO 639 code)` };
  }
  return { tag: canonicalCase(schema) };
}

/**
 * The languages of translation settings: each a BCP 47 tag (stored in canonical case), no tag
 * twice once normalised. Errors name the index of the offending entry.
 */
export function validateLanguages(languages: readonly string[], field = "languages"): string[] {
  if (languages.length > TRANSLATION_LANGUAGES_MAX) {
    throw AppError.invalidArgument(`${field}: must contain at most ${TRANSLATION_LANGUAGES_MAX} items`);
  }
  const seen = new Map<string, number>();
  return languages.map((language, index) => {
    const normalized = normalizeLanguageTag(language);
    if ("problem" in normalized) throw AppError.invalidArgument(`${field}[${index}]: ${normalized.problem}`);
    const earlier = seen.get(normalized.tag.toLowerCase());
    if (earlier !== undefined) throw AppError.invalidArgument(`${field}[${index}]: "${language}" repeats ${field}[${earlier}]`);
    seen.set(normalized.tag.toLowerCase(), index);
    return normalized.tag;
  });
}
