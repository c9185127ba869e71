/**
 * Access levels on content, from most to least capable. They are the organization roles: a member
 * with role `edit` in the organization has at most level `edit` on its content.
 */
export const LEVELS = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type Level = (typeof LEVELS)[number];

/**
 * A collection's or space's `defaultLevel`: a level caps what organization members get on it,
 * `null` gives them nothing (only admins see it), `inherit` takes the parent collection's (at the
 * top: the member's organization role).
 */
export const DEFAULT_LEVELS = [...LEVELS, "inherit"] as const;
export type DefaultLevel = (typeof DEFAULT_LEVELS)[number] | null;

const RANK: Readonly<Record<Level, number>> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

export function isDefaultLevel(value: unknown): value is DefaultLevel {
  return value === null || (typeof value === "string" && (DEFAULT_LEVELS as readonly string[]).includes(value));
}

/** `level` is at least `wanted` (no level never is). */
export function atLeast(level: Level | null, wanted: Level): boolean {
  return level !== null && RANK[level] >= RANK[wanted];
}

/** The lesser of two levels. */
export function lesser(a: Level, b: Level): Level {
  return RANK[a] <= RANK[b] ? a : b;
}
