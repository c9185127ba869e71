import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { User } from "../../domain/user.js";
import { createToken } from "../shared/tokens.js";
import { normalizeEmail } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface IssueTokenInput {
  email: string;
  label: string;
}

/** Administrative: a new token for an existing user; the secret is returned only here. */
export async function issueToken(em: EntityManager, input: IssueTokenInput, deps: UseCaseDeps): Promise<{ tokenId: string; token: string }> {
  const email = normalizeEmail("email", input.email);
  const label = input.label.trim();
  if (label.length > 255) throw AppError.invalidArgument("label: must be at most 255 characters");
  const issued = await deps.unitOfWork.run(em, async (tx) => {
    const user = await tx.findOne(User, { email });
    if (!user) throw AppError.notFound("User");
    return createToken(tx, { user, label: label || null }, deps, null);
  });
  return { tokenId: issued.token.id, token: issued.secret };
}
