import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Session } from "../../domain/session.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** Signs the caller's session out; true when it was still going. An API token's caller has no session to end. */
export async function endSession(em: EntityManager, input: { caller: CallerInput | undefined }, deps: UseCaseDeps): Promise<{ ended: boolean }> {
  const caller = requireCaller(input.caller);
  if (!caller.tokenId || !isId(caller.tokenId)) throw AppError.unauthenticated("caller: signing out needs a session");
  return deps.unitOfWork.run(em, async (tx) => {
    const session = await tx.findOne(Session, { id: caller.tokenId!, user: caller.userId });
    if (!session) throw AppError.unauthenticated("caller: signing out needs a session");
    return { ended: session.end(deps.clock) };
  });
}
