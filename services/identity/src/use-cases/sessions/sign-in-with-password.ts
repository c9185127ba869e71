import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { decoyPasswordHash, UserPassword, validatePassword, verifyPassword } from "../../domain/password.js";
import { User } from "../../domain/user.js";
import { normalizeEmail } from "../shared/validation.js";
import { startSession, type StartedSession } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

export interface SignInWithPasswordInput {
  email: string;
  password: string;
}

/** A session, or how long the account stays locked. */
export type SignInOutcome = { started: StartedSession; lockedForSeconds: 0 } | { started: undefined; lockedForSeconds: number };

/** The one answer for an unknown e-mail, an account without a password and a wrong password. */
export const WRONG_CREDENTIALS = "Wrong e-mail or password";

/**
 * Checks an e-mail and a password and starts a session ("password"). An unknown e-mail is checked
 * against a decoy hash, so it costs what a wrong password costs, and is answered the same. Failed
 * attempts are counted on the account (under its row lock, so concurrent guesses all count); the
 * `deps.lockout.failures`th locks it for `deps.lockout.lockMs`, during which even the right
 * password is refused (answered with the time left, not a session).
 */
export async function signInWithPassword(em: EntityManager, input: SignInWithPasswordInput, deps: UseCaseDeps): Promise<SignInOutcome> {
  const email = normalizeEmail("email", input.email);
  const password = validatePassword("password", input.password);
  const outcome = await deps.unitOfWork.run(em, async (tx): Promise<SignInOutcome | "refused"> => {
    const user = await tx.findOne(User, { email, integrationInstallationId: null });
    const credential = user ? await tx.findOne(UserPassword, { user }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (!user || !credential) {
      await verifyPassword(password, await decoyPasswordHash());
      return "refused";
    }
    const now = deps.clock();
    const lockedForMs = credential.lockedForMs(now);
    if (lockedForMs > 0) return { started: undefined, lockedForSeconds: Math.ceil(lockedForMs / 1000) };
    if (!(await verifyPassword(password, credential.hash))) {
      // Committed with the answer: the failure counts although the sign-in is refused.
      credential.recordFailure(now, deps.lockout);
      return "refused";
    }
    credential.recordSuccess();
    return { started: startSession(tx, user, "password", deps), lockedForSeconds: 0 };
  });
  if (outcome === "refused") throw AppError.unauthenticated(WRONG_CREDENTIALS);
  return outcome;
}
