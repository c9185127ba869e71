import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { hashTokenSecret } from "../../domain/tokens.js";
import { tokenRevoked } from "../../events.js";
import { isId } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface RevokeTokenInput {
  /** The secret, or empty when revoking by id. */
  token: string;
  tokenId: string;
}

/** Administrative: revokes a token by secret or id; revoking twice keeps the first revocation time. */
export async function revokeToken(em: EntityManager, input: RevokeTokenInput, deps: UseCaseDeps): Promise<{ tokenId: string; revokedAt: Date }> {
  const secret = input.token.trim();
  const tokenId = input.tokenId.trim();
  if (!secret && !tokenId) throw AppError.invalidArgument("token: give the token secret (token) or its identifier (token_id)");
  if (secret && tokenId) throw AppError.invalidArgument("token: give either the token secret or token_id, not both");
  if (tokenId && !isId(tokenId)) throw AppError.notFound("Token");

  const result = await deps.unitOfWork.run(em, async (tx) => {
    const token = await tx.findOne(ApiToken, secret ? { tokenHash: hashTokenSecret(secret) } : { id: tokenId });
    if (!token) throw AppError.notFound("Token");
    if (!token.revoke(deps.clock)) return { tokenId: token.id, revokedAt: token.revokedAt!, changed: false };
    recordEvent(tx, tokenRevoked, {
      organizationId: null,
      actor: null,
      payload: { tokenId: token.id, userId: token.user.id },
    });
    return { tokenId: token.id, revokedAt: token.revokedAt!, changed: true };
  });
  return { tokenId: result.tokenId, revokedAt: result.revokedAt };
}
