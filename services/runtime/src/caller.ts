import { AppError } from "./errors.js";

/** The authenticated principal, as carried by the proto `Caller`. */
export interface CallerInput {
  userId: string;
  tokenId?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids; anything else cannot name a row and is answered like a missing one. */
export function isId(value: string | undefined | null): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** The caller of a use case; a call without one is unauthenticated. */
export function requireCaller(caller: CallerInput | undefined): CallerInput {
  if (!caller?.userId) throw AppError.unauthenticated("caller: required");
  return caller;
}
