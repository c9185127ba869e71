import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, requireCaller } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { Session } from "../../domain/session.js";
import { createToken } from "../shared/tokens.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface IssueCallerTokenInput {
  caller: CallerInput | undefined;
  label: string;
  ttlSeconds: number;
}

export interface IssuedCallerToken {
  tokenId: string;
  token: string;
  expiresAt: Date;
}

export const MAX_CALLER_TOKEN_TTL_SECONDS = 86_400;

/** The caller's session as a token it may pass on: its user and its absolute expiry (an ended or idle one is none). */
async function ownSession(tx: EntityManager, caller: CallerInput, now: Date, deps: UseCaseDeps) {
  const session = await tx.findOne(Session, { id: caller.tokenId!, user: caller.userId }, { populate: ["user"] });
  if (!session || !session.isLive(now, deps.sessions)) return null;
  return { user: session.user, revokedAt: null, expiresAt: session.expiresAt, samlProviderId: null };
}

/**
 * A short-lived token of the caller's own user, so it reads nothing the caller cannot. It never
 * outlives the token the caller authenticated with, and carries that token's SSO sign-in (an
 * organization requiring SSO accepts it as it accepts the caller's). A session's caller passes on
 * its user, the token never outliving the session's absolute expiry.
 */
export async function issueCallerToken(em: EntityManager, input: IssueCallerTokenInput, deps: UseCaseDeps): Promise<IssuedCallerToken> {
  const caller = requireCaller(input.caller);
  const label = input.label.trim();
  if (label.length === 0) throw AppError.invalidArgument("label: is required");
  if (label.length > 255) throw AppError.invalidArgument("label: must be at most 255 characters");
  if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1 || input.ttlSeconds > MAX_CALLER_TOKEN_TTL_SECONDS) {
    throw AppError.invalidArgument(`ttl_seconds: must be between 1 and ${MAX_CALLER_TOKEN_TTL_SECONDS}`);
  }
  if (!isId(caller.tokenId) || !isId(caller.userId)) throw AppError.unauthenticated("caller: an API token is required");
  return deps.unitOfWork.run(em, async (tx) => {
    const now = deps.clock();
    const own = (await tx.findOne(ApiToken, { id: caller.tokenId!, user: caller.userId }, { populate: ["user"] })) ?? (await ownSession(tx, caller, now, deps));
    if (!own || own.revokedAt || (own.expiresAt && own.expiresAt <= now)) throw AppError.unauthenticated();
    const wanted = new Date(now.getTime() + input.ttlSeconds * 1000);
    const expiresAt = own.expiresAt && own.expiresAt < wanted ? own.expiresAt : wanted;
    const { token, secret } = await createToken(
      tx,
      { user: own.user, label, expiresAt, ...(own.samlProviderId ? { samlProviderId: own.samlProviderId } : {}) },
      deps,
      caller,
    );
    return { tokenId: token.id, token: secret, expiresAt };
  });
}
