import { AppError } from "@imprint/runtime";

/**
 * The rules of a page's fields, each answering invalid_argument naming the field. The mapping of
 * the editing API's input onto them is in use-cases/shared/page-input.ts.
 */

/** Limits of page fields; a request breaking one answers invalid_argument naming the field. */
export const PAGE_LIMITS = {
  title: 255,
  slug: 100,
  emoji: 50,
  icon: 50,
  description: 1000,
  markdownBytes: 2 * 1024 * 1024,
  href: 2048,
  variables: 500,
  variableName: 64,
  variableValue: 256,
} as const;

export const CONTENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const SLUG = /^[\p{L}\p{N}_-]+$/u;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const invalid = (field: string, rule: string) => AppError.invalidArgument(`${field}: ${rule}`);

/** An id given by the client: the right shape, or an answer naming the field. */
export function contentIdFrom(value: string, field: string): string {
  if (!CONTENT_ID.test(value)) throw invalid(field, 'must be 1 to 64 letters, digits, "-" or "_"');
  return value;
}

export function optionalId(value: string, field: string): string | null {
  return value === "" ? null : contentIdFrom(value, field);
}

export function pageTitle(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > PAGE_LIMITS.title) throw invalid(field, `must be 1 to ${PAGE_LIMITS.title} characters`);
  return trimmed;
}

export function pageSlug(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > PAGE_LIMITS.slug || !SLUG.test(trimmed)) {
    throw invalid(field, `must be 1 to ${PAGE_LIMITS.slug} letters, digits, "-" or "_"`);
  }
  return trimmed;
}

export function bounded(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length > max) throw invalid(field, `must be at most ${max} characters`);
  return trimmed;
}

export function pageMarkdown(value: string, field: string): string {
  if (Buffer.byteLength(value, "utf8") > PAGE_LIMITS.markdownBytes) throw invalid(field, "must be at most 2 MiB");
  return value;
}

export function pageHref(value: string, field: string): string {
  const trimmed = value.trim();
  const absolute = /^https?:\/\//i.test(trimmed) && URL.canParse(trimmed);
  if (trimmed.length === 0 || trimmed.length > PAGE_LIMITS.href || !(absolute || trimmed.startsWith("/"))) {
    throw invalid(field, `must be an http(s) URL or a path starting with "/", at most ${PAGE_LIMITS.href} characters`);
  }
  return trimmed;
}

export function variablesFrom(values: Record<string, string>, field: string): Record<string, string> {
  const entries = Object.entries(values);
  if (entries.length > PAGE_LIMITS.variables) throw invalid(field, `at most ${PAGE_LIMITS.variables} variables`);
  for (const [name, value] of entries) {
    if (name.length > PAGE_LIMITS.variableName || !VARIABLE_NAME.test(name)) {
      throw invalid(`${field}.${name}`, `names are 1 to ${PAGE_LIMITS.variableName} letters, digits or "_", not starting with a digit`);
    }
    if (value.length > PAGE_LIMITS.variableValue) throw invalid(`${field}.${name}`, `must be at most ${PAGE_LIMITS.variableValue} characters`);
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}
