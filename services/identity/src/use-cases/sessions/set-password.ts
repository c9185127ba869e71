import type { EntityManager } from "@mikro-orm/postgresql";
import { hashPassword, validatePassword } from "../../domain/password.js";
import { normalizeEmail } from "../shared/validation.js";
import { endUserSessions, findPerson, storePassword } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

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
