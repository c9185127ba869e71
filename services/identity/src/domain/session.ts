import { createHmac } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type Clock } from "@imprint/runtime";
import { generateTokenSecret, hashTokenSecret, TOKEN_PREFIX } from "./tokens.js";
import { UserSchema } from "./user.js";

/** A session's secret: `ims_` + 43 base62 characters, the cookie's value (only its SHA-256 is kept). */
export const SESSION_PREFIX = "ims_";
/** A password reset token: `imr_` + 43 base62 characters (only its SHA-256 is kept). */
export const RESET_PREFIX = "imr_";

/** How long a reset link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

export function generateSessionSecret(): string {
  return SESSION_PREFIX + generateTokenSecret().slice(TOKEN_PREFIX.length);
}

export function generateResetToken(): string {
  return RESET_PREFIX + generateTokenSecret().slice(TOKEN_PREFIX.length);
}

export { hashTokenSecret as hashSessionSecret };

/**
 * The session's CSRF token: an HMAC of a fixed label keyed by the session's secret. Whoever holds
 * the secret (the browser's HttpOnly cookie) can have it computed, nobody else; nothing more is stored.
 */
export function csrfTokenOf(secret: string): string {
  return createHmac("sha256", secret).update("imprint-csrf-v1").digest("base64url");
}

/** The sign-in methods an organization may allow; a session's method is one of them, with its provider after ":". */
export const SIGN_IN_METHODS = ["password", "oidc", "saml"] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** "password", "oidc:<providerId>", "saml:<providerId>" → the method an organization allows or not. */
export function signInMethodOf(sessionMethod: string): string {
  return sessionMethod.split(":", 1)[0]!;
}

/** An organization's sign-in methods: at least one, each known, each once (kept in SIGN_IN_METHODS' order). */
export function validateSignInMethods(field: string, methods: readonly string[]): SignInMethod[] {
  for (const method of methods) {
    if (!(SIGN_IN_METHODS as readonly string[]).includes(method))
      throw AppError.invalidArgument(`${field}: "${method.slice(0, 40)}" is not one of ${SIGN_IN_METHODS.join(", ")}`);
  }
  const chosen = SIGN_IN_METHODS.filter((method) => methods.includes(method));
  if (chosen.length === 0) throw AppError.invalidArgument(`${field}: must allow at least one of ${SIGN_IN_METHODS.join(", ")}`);
  return chosen;
}

export interface SessionPolicy {
  /** A session unused this long ends (SESSION_IDLE_MS). */
  idleMs: number;
  /** A session ends this long after it started, used or not (SESSION_MAX_MS). */
  maxMs: number;
}

/** A person's browser session: only the SHA-256 of its secret is kept. */
export const SessionSchema = defineEntity({
  name: "Session",
  tableName: "sessions",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    user: p.manyToOne(UserSchema).deleteRule("cascade").index(),
    /** Hex SHA-256 of the secret: authentication is one lookup on this unique index. */
    secretHash: p.string().length(64).unique(),
    /** How it was signed in: "password", "oidc:<providerId>" or "saml:<providerId>". */
    method: p.string().length(300),
    createdAt: p.datetime(),
    /** Written at most every minute (or a tenth of the idle timeout, when shorter): the idle expiry counts from it. */
    lastUsedAt: p.datetime(),
    /** The absolute expiry: createdAt + SESSION_MAX_MS. */
    expiresAt: p.datetime(),
    /** When it was signed out (or ended by a new password); null while it lasts. */
    endedAt: p.datetime().nullable(),
  },
});

export class Session extends SessionSchema.class {
  /** When the session ends if not used again: its idle expiry, never after the absolute one. */
  endsAt(policy: SessionPolicy): Date {
    return new Date(Math.min(this.lastUsedAt.getTime() + policy.idleMs, this.expiresAt.getTime()));
  }

  /** Whether it still authenticates at `now`. */
  isLive(now: Date, policy: SessionPolicy): boolean {
    return !this.endedAt && this.endsAt(policy) > now;
  }

  /** Signs it out; false when it already was. */
  end(clock: Clock): boolean {
    if (this.endedAt) return false;
    this.endedAt = clock();
    return true;
  }
}
SessionSchema.setClass(Session);

/** A single-use password reset token of a user (the admin CLI's reset link). */
export const PasswordResetSchema = defineEntity({
  name: "PasswordReset",
  tableName: "password_resets",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    user: p.manyToOne(UserSchema).deleteRule("cascade").index(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export class PasswordReset extends PasswordResetSchema.class {}
PasswordResetSchema.setClass(PasswordReset);
