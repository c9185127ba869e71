import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { hashTokenSecret, LAST_USED_WRITE_INTERVAL_MS, TOKEN_PREFIX } from "../../domain/tokens.js";
import type { AuthenticatedPrincipal } from "../shared/views.js";
import type { UseCaseDeps } from "../../deps.js";
import { findTokenByHash } from "../shared/hot-path-queries.js";
import { authenticateSession } from "../sessions/authenticate-session.js";

export interface AuthenticateTokenInput {
  token: string;
  /** The secret is a session's (a cookie), not an API token's. */
  session?: boolean;
}

/**
 * Resolves a bearer secret (or, with `session`, a session cookie's: authenticateSession) to its owner. The hot path of every API request: one read on the
 * unique hash index (token and user joined); `lastUsedAt` is written at most once a minute per
 * token, by a conditional update that concurrent requests cannot repeat.
 */
export async function authenticateToken(em: EntityManager, input: AuthenticateTokenInput, deps: UseCaseDeps): Promise<AuthenticatedPrincipal> {
  const secret = input.token.trim();
  if (input.session) return authenticateSession(em, secret, deps);
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 256) throw AppError.unauthenticated();
  const token = await findTokenByHash(em, hashTokenSecret(secret));
  const now = deps.clock();
  if (!token || token.revokedAt || (token.expiresAt && token.expiresAt <= now)) throw AppError.unauthenticated();

  const staleBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
  if (!token.lastUsedAt || token.lastUsedAt <= staleBefore) {
    await em.nativeUpdate(ApiToken, { id: token.tokenId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: staleBefore } }] }, { lastUsedAt: now });
  }
  return { user: token.user, tokenId: token.tokenId, expiresAt: token.expiresAt };
}
