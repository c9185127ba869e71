import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { ApiToken } from "../../domain/api-token.js";
import { generateTokenSecret, hashTokenSecret } from "../../domain/tokens.js";
import type { User } from "../../domain/user.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { tokenIssued } from "../../events.js";

/** Creates a token for `user` with a chosen or generated secret; returns the secret once. */
export async function createToken(
  em: EntityManager,
  input: { user: User; label: string | null; secret?: string | undefined; expiresAt?: Date; samlProviderId?: string },
  deps: UseCaseDeps,
  actor: CallerInput | null,
): Promise<{ token: ApiToken; secret: string }> {
  const secret = input.secret ?? generateTokenSecret();
  const tokenHash = hashTokenSecret(secret);
  if (input.secret && (await em.count(ApiToken, { tokenHash })) > 0) {
    throw new AppError("already_exists", "token: this secret is already in use");
  }
  const token = em.create(ApiToken, {
    user: input.user,
    label: input.label,
    tokenHash,
    lastFour: secret.slice(-4),
    createdAt: deps.clock(),
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: input.expiresAt ?? null,
    samlProviderId: input.samlProviderId ?? null,
  });
  recordEvent(em, tokenIssued, {
    organizationId: null,
    actor,
    payload: { tokenId: token.id, userId: input.user.id, label: input.label },
  });
  return { token, secret };
}
