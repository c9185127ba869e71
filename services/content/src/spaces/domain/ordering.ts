import { generateKeyBetween, generateNKeysBetween } from "fractional-indexing";

/**
 * Order among siblings (collections and spaces under one parent share one sequence) is a
 * fractional index key per row: moving an item writes that one row, with a key between its new
 * neighbours' keys. Keys compare byte-wise, so the columns use the "C" collation.
 */
export const POSITION_COLLATION = "C";

/** A key between `before` and `after` (either may be null: the start or the end). */
export function positionBetween(before: string | null, after: string | null): string {
  return generateKeyBetween(before, after);
}

/** `count` ascending keys between `before` and `after`. */
export function positionsBetween(before: string | null, after: string | null, count: number): string[] {
  return generateNKeysBetween(before, after, count);
}

/** Where a space or collection goes when moved or transferred; `organizationId` only for a transfer. */
export interface Placement {
  organizationId?: string;
  parentId: string | null;
  position: string;
}
