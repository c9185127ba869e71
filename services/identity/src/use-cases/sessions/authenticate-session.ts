import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { hashSessionSecret, Session, SESSION_PREFIX } from "../../domain/session.js";
import { LAST_USED_WRITE_INTERVAL_MS } from "../../domain/tokens.js";
import type { AuthenticatedPrincipal } from "../shared/views.js";
import { sessionView } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

export const SESSION_ENDED = "Your session has ended: sign in again";

/**
 * Resolves a session's secret (the cookie) to its user, like an API token: one read on the unique
 * hash index. The idle expiry counts from `lastUsedAt`, written at most once a minute (or every
 * tenth of the idle timeout, when that is shorter) by a conditional update concurrent requests
 * cannot repeat. The principal's token id is the session's id.
 */
export async function authenticateSession(em: EntityManager, secret: string, deps: UseCaseDeps): Promise<AuthenticatedPrincipal> {
  if (!secret.startsWith(SESSION_PREFIX) || secret.length > 256) throw AppError.unauthenticated(SESSION_ENDED);
  const session = await em.findOne(Session, { secretHash: hashSessionSecret(secret) }, { populate: ["user"] });
  const now = deps.clock();
  if (!session || !session.isLive(now, deps.sessions)) throw AppError.unauthenticated(SESSION_ENDED);
  const staleBefore = new Date(now.getTime() - Math.min(LAST_USED_WRITE_INTERVAL_MS, deps.sessions.idleMs / 10));
  if (session.lastUsedAt <= staleBefore) {
    await em.nativeUpdate(Session, { id: session.id, lastUsedAt: { $lte: staleBefore } }, { lastUsedAt: now });
    session.lastUsedAt = now;
  }
  const view = sessionView(session, secret, deps.sessions);
  return { user: session.user, tokenId: session.id, expiresAt: view.expiresAt, session: view };
}
