import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller } from "../shared/validation.js";
import { endUserSessions } from "./shared.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** Ends every session of the caller's user ("sign out everywhere"), whatever the caller authenticated with. */
export async function endAllSessions(em: EntityManager, input: { caller: CallerInput | undefined }, deps: UseCaseDeps): Promise<{ endedSessions: number }> {
  const caller = requireCaller(input.caller);
  return deps.unitOfWork.run(em, async (tx) => ({ endedSessions: await endUserSessions(tx, caller.userId, deps) }));
}
