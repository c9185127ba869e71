import type { EntityManager } from "@mikro-orm/postgresql";
import type { UserData } from "../shared/views.js";
import { requireVisibleUser } from "../shared/user-visibility.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface GetUserInput {
  caller: CallerInput | undefined;
  /** Empty for the caller itself. */
  userId: string;
}

/** The caller, or a user sharing one of its organizations; "User not found" for anyone else. */
export async function getUser(em: EntityManager, input: GetUserInput, _deps: UseCaseDeps): Promise<UserData> {
  const caller = requireCaller(input.caller);
  return requireVisibleUser(em, caller.userId, input.userId === "" ? caller.userId : input.userId);
}
