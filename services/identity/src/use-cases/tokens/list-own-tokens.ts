import type { EntityManager } from "@mikro-orm/postgresql";
import { ApiToken } from "../../domain/api-token.js";
import { requireCaller } from "../shared/validation.js";
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
