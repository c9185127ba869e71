import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@imprint/runtime";

export const TOKEN_PREFIX = "imp_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 43; // ≈ 256 bits of entropy
/** Operator-chosen secrets (bootstrap) must still be hard to guess and safe in headers. */
export const CHOSEN_SECRET_PATTERN = /^imp_[A-Za-z0-9_-]{8,200}$/;

export function validateChosenSecret(field: string, secret: string): string {
  if (!CHOSEN_SECRET_PATTERN.test(secret)) {
    throw AppError.invalidArgument(`${field}: must start with "imp_" followed by 8 to 200 letters, digits, "-" or "_"`);
  }
  return secret;
}

/** A new secret: `imp_` + 43 base62 characters from the system CSPRNG, without modulo bias. */
export function generateTokenSecret(): string {
  let body = "";
  while (body.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: bytes above it would favour the first characters.
      if (byte < 248 && body.length < SECRET_LENGTH) body += BASE62[byte % 62];
    }
  }
  return TOKEN_PREFIX + body;
}

export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** `lastUsedAt` is written at most this often per token, so authentication stays a single read. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
