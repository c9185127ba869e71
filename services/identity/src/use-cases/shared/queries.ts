/** Small pieces of the queries several use cases build. */

/** A case-insensitive "contains" pattern for `$ilike`: `%` and `_` in the caller's text are literal characters, not wildcards. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The id a relation holds: an entity (loaded or a reference), or the bare id when read with `fields`. */
export function idOf(ref: string | { id: string }): string {
  return typeof ref === "string" ? ref : ref.id;
}
