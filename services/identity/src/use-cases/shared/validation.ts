import { AppError, isId, requireCaller as requireRuntimeCaller } from "@imprint/runtime";
import type { CallerInput } from "../../deps.js";
import { INSTALLATION_EMAIL_DOMAIN } from "../../domain/user.js";

/** Identifiers are UUIDs; anything else cannot name an existing record (and must not reach SQL as a uuid). */
export { isId };

/**
 * The runtime's caller check with the answers identity's RPCs have always given: no caller is
 * invalid_argument, a user id that is not a uuid an unknown user (identity owns users).
 */
export function requireCaller(caller: CallerInput | undefined): CallerInput {
  return requireRuntimeCaller(caller, { missing: "invalid_argument", userIdMustBeId: true });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** E-mails are compared case-insensitively, so they are stored lower-cased. */
export function normalizeEmail(field: string, value: string): string {
  const email = value.trim().toLowerCase();
  if (email.length === 0) throw AppError.invalidArgument(`${field}: is required`);
  if (email.length > 320 || !EMAIL.test(email)) throw AppError.invalidArgument(`${field}: must be a valid e-mail address`);
  // Every route by which a person gets a user, a membership or a token names them by e-mail through
  // here: the principals of integration installations stay out of reach of all of them.
  if (email.endsWith(`@${INSTALLATION_EMAIL_DOMAIN}`))
    throw AppError.invalidArgument(`${field}: the domain ${INSTALLATION_EMAIL_DOMAIN} is reserved for integration installations`);
  return email;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function normalizeEmailDomain(field: string, value: string): string {
  const domain = value.trim().toLowerCase();
  if (!DOMAIN.test(domain)) throw AppError.invalidArgument(`${field}: must be a domain name such as example.com (got "${value}")`);
  return domain;
}

/** An organization's title: 2 to 255 characters once trimmed (the gateway leaves this rule to identity). */
export function validateTitle(field: string, value: string): string {
  const title = value.trim();
  if (title.length < 2) {
    throw AppError.invalidArgument(
      value.length >= 2 ? `${field}: must contain at least two non-whitespace characters` : `${field}: must be at least 2 characters`,
    );
  }
  if (title.length > 255) throw AppError.invalidArgument(`${field}: must be at most 255 characters`);
  return title;
}

export function validateDisplayName(field: string, value: string): string {
  const name = value.trim();
  if (name.length > 255) throw AppError.invalidArgument(`${field}: must be at most 255 characters`);
  return name;
}

/** Display name given, or the e-mail's local part. */
export function displayNameOrDefault(field: string, value: string | undefined, email: string): string {
  const name = validateDisplayName(field, value ?? "");
  return name.length > 0 ? name : (email.split("@")[0] ?? email);
}
