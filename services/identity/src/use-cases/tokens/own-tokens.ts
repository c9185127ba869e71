import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { User } from "../../domain/user.js";
import { tokenRevoked } from "../../events.js";
import { createToken } from "../shared/tokens.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** A person holds few tokens: the list is one page of at most this many. */
export const MAX_OWN_TOKENS_LISTED = 1000;

/** The caller's personal tokens still valid, newest first: neither revoked, expired, nor issued by an SSO sign-in. */
export async function listOwnTokens(em: EntityManager, input: { caller: CallerInput | undefined }, deps: UseCaseDeps): Promise<ApiToken[]> {
  const caller = requireCaller(input.caller);
  return em.find(
    ApiToken,
    { user: caller.userId, revokedAt: null, samlProviderId: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: deps.clock() } }] },
    { orderBy: { createdAt: "desc", id: "desc" }, limit: MAX_OWN_TOKENS_LISTED },
  );
}

/** A personal API token of the caller's own user, labelled, expiring at `expiresAt` (in the future) or never; the secret is answered once. */
export async function createOwnToken(
  em: EntityManager,
  input: { caller: CallerInput | undefined; label: string; expiresAt: Date | undefined },
  deps: UseCaseDeps,
): Promise<{ token: ApiToken; secret: string }> {
  const caller = requireCaller(input.caller);
  const label = input.label.trim();
  if (label.length === 0) throw AppError.invalidArgument("label: is required");
  if (label.length > 255) throw AppError.invalidArgument("label: must be at most 255 characters");
  return deps.unitOfWork.run(em, async (tx) => {
    if (input.expiresAt && input.expiresAt <= deps.clock()) throw AppError.invalidArgument("expires_at: must be in the future");
    const user = await tx.findOne(User, caller.userId);
    if (!user) throw AppError.unauthenticated();
    return createToken(tx, { user, label, ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}) }, deps, caller);
  });
}

/** Revokes one of the caller's own tokens (`token.revoked`); another user's token is not found. Revoking twice keeps the first time. */
export async function revokeOwnToken(
  em: EntityManager,
  input: { caller: CallerInput | undefined; tokenId: string },
  deps: UseCaseDeps,
): Promise<{ revokedAt: Date }> {
  const caller = requireCaller(input.caller);
  if (!isId(input.tokenId)) throw AppError.notFound("Token");
  return deps.unitOfWork.run(em, async (tx) => {
    const token = await tx.findOne(ApiToken, { id: input.tokenId, user: caller.userId });
    if (!token) throw AppError.notFound("Token");
    if (token.revoke(deps.clock)) recordEvent(tx, tokenRevoked, { organizationId: null, actor: caller, payload: { tokenId: token.id, userId: caller.userId } });
    return { revokedAt: token.revokedAt! };
  });
}
