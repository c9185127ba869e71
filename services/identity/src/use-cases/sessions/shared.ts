import type { EntityManager } from "@mikro-orm/postgresql";
import { UserPassword } from "../../domain/password.js";
import { csrfTokenOf, generateSessionSecret, hashSessionSecret, Session, type SessionPolicy } from "../../domain/session.js";
import { AppError } from "@imprint/runtime";
import { User } from "../../domain/user.js";
import type { SessionView, UserData } from "../shared/views.js";
import type { UseCaseDeps } from "../../deps.js";

/** A session just started: its view, its secret (the cookie's value, shown once) and its user. */
export interface StartedSession {
  session: SessionView;
  secret: string;
  user: UserData;
}

export function sessionView(session: Session, secret: string, policy: SessionPolicy): SessionView {
  return { id: session.id, method: session.method, csrfToken: csrfTokenOf(secret), createdAt: session.createdAt, expiresAt: session.endsAt(policy) };
}

/** Starts a session of `user` signed in with `method`, in the caller's transaction. */
export function startSession(tx: EntityManager, user: User, method: string, deps: UseCaseDeps): StartedSession {
  const secret = generateSessionSecret();
  const now = deps.clock();
  const session = tx.create(Session, {
    user,
    secretHash: hashSessionSecret(secret),
    method,
    createdAt: now,
    lastUsedAt: now,
    expiresAt: new Date(now.getTime() + deps.sessions.maxMs),
    endedAt: null,
  });
  return { session: sessionView(session, secret, deps.sessions), secret, user };
}

/** Ends every session of the user still going; answers how many. */
export async function endUserSessions(tx: EntityManager, userId: string, deps: Pick<UseCaseDeps, "clock">): Promise<number> {
  return tx.nativeUpdate(Session, { user: userId, endedAt: null }, { endedAt: deps.clock() });
}

/** Gives the user this password hash (their first, or a new one, which clears a lockout). */
export async function storePassword(tx: EntityManager, user: User, hash: string, deps: Pick<UseCaseDeps, "clock">): Promise<void> {
  const existing = await tx.findOne(UserPassword, { user });
  if (existing) {
    existing.replace(hash, deps.clock);
    return;
  }
  tx.create(UserPassword, { user, hash, failedAttempts: 0, lockedUntil: null, updatedAt: deps.clock() });
}

/** A person (no installation's principal) by normalized e-mail; NOT_FOUND "User" otherwise. */
export async function findPerson(tx: EntityManager, email: string): Promise<User> {
  const user = await tx.findOne(User, { email, integrationInstallationId: null });
  if (!user) throw AppError.notFound("User");
  return user;
}
