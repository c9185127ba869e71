import { AppError } from "@imprint/runtime";
import { TRANSLATION_TITLE_MAX } from "./entities.js";

export function validateTranslationTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === "") throw AppError.invalidArgument("title: is required");
  if ([...trimmed].length > TRANSLATION_TITLE_MAX) throw AppError.invalidArgument(`title: must be at most ${TRANSLATION_TITLE_MAX} characters`);
  return trimmed;
}
