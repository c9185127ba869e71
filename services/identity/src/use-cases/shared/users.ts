import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { User } from "../../domain/user.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { userCreated } from "../../events.js";

/**
 * The user with this (normalized) e-mail, created when unknown. Runs inside the caller's
 * transaction; a concurrent creation of the same e-mail fails on the unique index and the
 * transaction is retried by the caller's client.
 */
export async function findOrCreateUser(
  em: EntityManager,
  input: { email: string; displayName: string },
  deps: UseCaseDeps,
  actor: CallerInput | null,
): Promise<{ user: User; created: boolean }> {
  const existing = await em.findOne(User, { email: input.email });
  if (existing) return { user: existing, created: false };
  const user = em.create(User, { email: input.email, displayName: input.displayName, photoUrl: null, createdAt: deps.clock() });
  recordEvent(em, userCreated, {
    organizationId: null,
    actor,
    payload: { userId: user.id, email: user.email, displayName: user.displayName },
  });
  return { user, created: true };
}
