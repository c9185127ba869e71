import { AppError } from "@imprint/runtime";
import { COLLECTION_DESCRIPTION_MAX, COLLECTION_TITLE_MAX } from "./collection.js";
import { SPACE_EMOJI_MAX, SPACE_LANGUAGES, SPACE_TITLE_MAX } from "./space.js";

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
function length(value: string): number {
  return [...value].length;
}

const UNTITLED = "Untitled";

/** A title of at most `max` characters; an empty one becomes "Untitled". */
export function validateTitle(field: string, value: string, max: number): string {
  const title = value.trim();
  if (length(title) > max) throw AppError.invalidArgument(`${field}: must be at most ${max} characters`);
  return title === "" ? UNTITLED : title;
}

export const validateSpaceTitle = (value: string) => validateTitle("title", value, SPACE_TITLE_MAX);
export const validateCollectionTitle = (value: string) => validateTitle("title", value, COLLECTION_TITLE_MAX);

export function validateCollectionDescription(value: string): string | null {
  const description = value.trim();
  if (length(description) > COLLECTION_DESCRIPTION_MAX) {
    throw AppError.invalidArgument(`description: must be at most ${COLLECTION_DESCRIPTION_MAX} characters`);
  }
  return description === "" ? null : description;
}

// Emoji characters (with joiners, variation selectors and skin tones), or Unicode code points in
// hex as GitBook also stores them (e.g. "1f389", "1f468-200d-1f4bb").
const EMOJI = /^(?:(?:[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Emoji_Component}]|\u200d|\ufe0f|\u20e3)+|[0-9a-fA-F]{2,6}(?:-[0-9a-fA-F]{2,6})*)$/u;

/** An emoji of at most 50 characters, or "" for none. */
export function validateEmoji(value: string): string {
  const emoji = value.trim();
  if (emoji === "") return "";
  if (length(emoji) > SPACE_EMOJI_MAX) throw AppError.invalidArgument(`emoji: must be at most ${SPACE_EMOJI_MAX} characters`);
  if (!EMOJI.test(emoji)) throw AppError.invalidArgument("emoji: must be an emoji character or its Unicode code point in hex");
  return emoji;
}

/** A language code of GitBook's TranslationLanguage list, or null for "" (none). */
export function validateSpaceLanguage(value: string): string | null {
  if (value === "") return null;
  if (!SPACE_LANGUAGES.includes(value)) throw AppError.invalidArgument(`language: must be one of ${SPACE_LANGUAGES.join(", ")}`);
  return value;
}
