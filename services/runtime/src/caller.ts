import { AppError } from "./errors.js";

/** The authenticated principal, as carried by the proto `Caller`. */
export interface CallerInput {
  userId: string;
  tokenId?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids; anything else cannot name a row and is answered like a missing one. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/**
 * How a service answers a call without a usable caller. The defaults are what content and
 * collaboration answer; identity keeps the answers its RPCs always gave (see its validation.ts).
 */
export interface CallerRules {
  /** The code for a call without a caller (default unauthenticated, "caller: required"). */
  missing?: "unauthenticated" | "invalid_argument";
  /**
   * Refuse a user id that is not a uuid as an unknown user (unauthenticated). Off by default: such
   * an id then finds no membership and the call answers not_found like any unknown user.
   */
  userIdMustBeId?: boolean;
}

/** The caller of a use case; a call without one is unauthenticated (or as `rules` say). */
export function requireCaller(caller: CallerInput | undefined, rules: CallerRules = {}): CallerInput {
  if (!caller?.userId) {
    throw rules.missing === "invalid_argument" ? AppError.invalidArgument("caller: is required") : AppError.unauthenticated("caller: required");
  }
  if (rules.userIdMustBeId && !isId(caller.userId)) throw AppError.unauthenticated("caller: unknown user");
  return caller;
}

/** The proto `Caller` a call to another service carries for `caller` (tokenId "" without a token). */
export function callerMessage(caller: CallerInput): { userId: string; tokenId: string } {
  return { userId: caller.userId, tokenId: caller.tokenId ?? "" };
}
