import { AppError } from "@imprint/runtime";

/** Parses a JSON field of a request; empty text is `fallback`. */
export function parseJsonField<T>(field: string, text: string | undefined, fallback: T): T {
  if (text === undefined || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw AppError.invalidArgument(`${field}: must be valid JSON`);
  }
}

/** A JSON object (not an array or a scalar). */
export function parseJsonObject(field: string, text: string | undefined, fallback: Record<string, unknown> = {}): Record<string, unknown> {
  const value = parseJsonField<unknown>(field, text, fallback);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw AppError.invalidArgument(`${field}: must be an object`);
  return value as Record<string, unknown>;
}
