import type { EntityManager } from "@mikro-orm/postgresql";
import { generateResetToken, hashSessionSecret, PASSWORD_RESET_TTL_MS, PasswordReset } from "../../domain/session.js";
import { normalizeEmail } from "../shared/validation.js";
import { findPerson } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

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
