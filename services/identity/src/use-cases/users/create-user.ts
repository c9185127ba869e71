import type { EntityManager } from "@mikro-orm/postgresql";
import type { User } from "../../domain/user.js";
import { findOrCreateUser } from "../shared/users.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { displayNameOrDefault, normalizeEmail } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface CreateUserInput {
  email: string;
  /** Defaults to the e-mail's local part. */
  displayName: string;
}

/** Administrative: creates a user, or returns the one that already has this e-mail. */
export async function createUser(em: EntityManager, input: CreateUserInput, deps: UseCaseDeps): Promise<{ user: User; created: boolean }> {
  const email = normalizeEmail("email", input.email);
  const displayName = displayNameOrDefault("display_name", input.displayName, email);
  const result = await conflictOnUniqueViolation(
    deps.unitOfWork.run(em, (tx) => findOrCreateUser(tx, { email, displayName }, deps, null)),
    "email: the user was created by a concurrent request; retry",
  );
  return result;
}
