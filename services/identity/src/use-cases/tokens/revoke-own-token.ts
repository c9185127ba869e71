import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { tokenRevoked } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

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
