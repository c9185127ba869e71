import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { hashPassword, validatePassword } from "../../domain/password.js";
import { hashSessionSecret, PasswordReset } from "../../domain/session.js";
import { endUserSessions, storePassword } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

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
