import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { ApiToken } from "../../domain/api-token.js";
import { User } from "../../domain/user.js";
import { createToken } from "../shared/tokens.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

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
