import { AppError } from "@imprint/runtime";
import { isId } from "./validation.js";

/** Batch lookups serve one page of another service's list, which holds at most 1000 items. */
export const MAX_BATCH_IDS = 1000;

/**
 * The distinct well-formed ids of a batch request, in request order. Malformed ids cannot name a
 * row, so they are left out like unknown ones.
 */
export function batchIds(field: string, ids: readonly string[]): string[] {
  if (ids.length > MAX_BATCH_IDS) throw AppError.invalidArgument(`${field}: must hold at most ${MAX_BATCH_IDS} ids`);
  return [...new Set(ids)].filter(isId);
}
