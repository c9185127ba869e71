import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type Clock } from "@imprint/runtime";
import { UserSchema } from "./user.js";

/** A password is 12 to 1024 characters (a passphrase fits; a megabyte of "password" does not reach scrypt). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export function validatePassword(field: string, password: string): string {
  // Counted in code points, as a person counts characters.
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw AppError.invalidArgument(`${field}: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw AppError.invalidArgument(`${field}: must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return password;
}

/**
 * scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB and some 50 ms a hash), OWASP's minimum. Each hash
 * keeps the parameters it was made with, so raising them here applies to passwords set from then on.
 */
export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize("NFC"), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** scrypt needs 128 * N * r bytes; Node's default bound (32 MiB) is just short of N = 2^15, r = 8. */
const maxmemFor = (N: number, r: number) => 256 * N * r;

/** `scrypt$<N>$<r>$<p>$<salt base64>$<key base64>`: a new random salt per password. */
export async function hashPassword(password: string, parameters: { N: number; r: number; p: number } = SCRYPT_PARAMETERS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...parameters, maxmem: maxmemFor(parameters.N, parameters.r) });
  return ["scrypt", parameters.N, parameters.r, parameters.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Whether `password` is the one `stored` was made from (constant-time compare); false for a hash it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  const parameters = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, { ...parameters, maxmem: maxmemFor(parameters.N, parameters.r) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * What an unknown e-mail is checked against, so it costs what a wrong password costs (no telling
 * accounts apart by the time of the answer). Made once, with the current parameters.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return decoyHash;
}

/** A person's password: its scrypt hash and the count of failed sign-ins that locks the account. */
export const UserPasswordSchema = defineEntity({
  name: "UserPassword",
  tableName: "user_passwords",
  properties: {
    user: p.manyToOne(UserSchema).primary().deleteRule("cascade"),
    /** `scrypt$N$r$p$salt$key` (see {@link hashPassword}). */
    hash: p.string().length(512),
    /** Failed sign-ins since the last success or lockout. */
    failedAttempts: p.integer().default(0),
    /** Until when sign-ins are refused, right password or not; null: not locked. */
    lockedUntil: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});

export interface LockoutPolicy {
  /** Failed sign-ins in a row that lock the account (PASSWORD_LOCKOUT_FAILURES). */
  failures: number;
  /** How long it stays locked (PASSWORD_LOCKOUT_MS). */
  lockMs: number;
}

export class UserPassword extends UserPasswordSchema.class {
  /** Milliseconds the account stays locked at `now`; 0 when it takes sign-ins. */
  lockedForMs(now: Date): number {
    return this.lockedUntil && this.lockedUntil > now ? this.lockedUntil.getTime() - now.getTime() : 0;
  }

  /** A failed sign-in: counted, and the account locked for `policy.lockMs` at the `policy.failures`th. */
  recordFailure(now: Date, policy: LockoutPolicy): void {
    this.failedAttempts += 1;
    if (this.failedAttempts >= policy.failures) {
      this.lockedUntil = new Date(now.getTime() + policy.lockMs);
      this.failedAttempts = 0;
    }
  }

  /** A successful sign-in clears the count of failures. */
  recordSuccess(): void {
    this.failedAttempts = 0;
    this.lockedUntil = null;
  }

  /** A new hash (set by an admin or a reset link): the lockout is cleared too. */
  replace(hash: string, clock: Clock): void {
    this.hash = hash;
    this.failedAttempts = 0;
    this.lockedUntil = null;
    this.updatedAt = clock();
  }
}
UserPasswordSchema.setClass(UserPassword);
