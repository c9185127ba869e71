import { AppError, parseRequestJson } from "@imprint/runtime";

/** Parses a JSON field of a request (nested at most MAX_JSON_DEPTH deep); empty text is `fallback`. */
export function parseJsonField<T>(field: string, text: string | undefined, fallback: T): T {
  if (text === undefined || text === "") return fallback;
  return parseRequestJson(text, field) as T;
}

/** A JSON object (not an array or a scalar). */
export function parseJsonObject(field: string, text: string | undefined, fallback: Record<string, unknown> = {}): Record<string, unknown> {
  const value = parseJsonField<unknown>(field, text, fallback);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw AppError.invalidArgument(`${field}: must be an object`);
  return value as Record<string, unknown>;
}
