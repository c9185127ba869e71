import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { hashPassword, validatePassword } from "../../domain/password.js";
import { generateResetToken, hashSessionSecret, PASSWORD_RESET_TTL_MS, PasswordReset } from "../../domain/session.js";
import { User } from "../../domain/user.js";
import { normalizeEmail } from "../shared/validation.js";
import { endUserSessions, storePassword } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

async function findPerson(tx: EntityManager, email: string): Promise<User> {
  const user = await tx.findOne(User, { email, integrationInstallationId: null });
  if (!user) throw AppError.notFound("User");
  return user;
}

/**
 * Administrative (the admin CLI): sets an existing person's password, clears its lockout and ends
 * its sessions (whoever knew the old password is signed out).
 */
export async function setPassword(
  em: EntityManager,
  input: { email: string; password: string },
  deps: UseCaseDeps,
): Promise<{ userId: string; endedSessions: number }> {
  const email = normalizeEmail("email", input.email);
  const hash = await hashPassword(validatePassword("password", input.password));
  return deps.unitOfWork.run(em, async (tx) => {
    const user = await findPerson(tx, email);
    await storePassword(tx, user, hash, deps);
    return { userId: user.id, endedSessions: await endUserSessions(tx, user.id, deps) };
  });
}

/** Administrative (the admin CLI): a single-use reset token of an existing person, valid an hour; only its hash is kept. */
export async function createPasswordReset(
  em: EntityManager,
  input: { email: string },
  deps: UseCaseDeps,
): Promise<{ token: string; expiresAt: Date; userId: string }> {
  const email = normalizeEmail("email", input.email);
  return deps.unitOfWork.run(em, async (tx) => {
    const user = await findPerson(tx, email);
    const token = generateResetToken();
    const now = deps.clock();
    const reset = tx.create(PasswordReset, {
      user,
      tokenHash: hashSessionSecret(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
      usedAt: null,
    });
    return { token, expiresAt: reset.expiresAt, userId: user.id };
  });
}

const INVALID_RESET = "token: this reset link is unknown, used or expired; ask an administrator for a new one";

/** Sets a password with a reset token, which is used up (under its row lock: used once), and ends every session of its user. */
export async function resetPassword(em: EntityManager, input: { token: string; password: string }, deps: UseCaseDeps): Promise<{ userId: string }> {
  const token = input.token.trim();
  if (token.length === 0 || token.length > 256) throw AppError.invalidArgument(INVALID_RESET);
  const hash = await hashPassword(validatePassword("password", input.password));
  return deps.unitOfWork.run(em, async (tx) => {
    const reset = await tx.findOne(PasswordReset, { tokenHash: hashSessionSecret(token) }, { populate: ["user"] });
    const now = deps.clock();
    if (!reset || reset.usedAt || reset.expiresAt <= now) throw AppError.invalidArgument(INVALID_RESET);
    // Used once: the conditional update wins for one of two concurrent resets.
    const claimed = await tx.nativeUpdate(PasswordReset, { id: reset.id, usedAt: null }, { usedAt: now });
    if (claimed === 0) throw AppError.invalidArgument(INVALID_RESET);
    await storePassword(tx, reset.user, hash, deps);
    await endUserSessions(tx, reset.user.id, deps);
    return { userId: reset.user.id };
  });
}
