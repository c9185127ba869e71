import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";

export interface GetChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** Id or number. */
  changeRequestId: string;
}

export async function getChangeRequest(em: EntityManager, input: GetChangeRequestInput, deps: UseCaseDeps): Promise<ChangeRequestView> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const changeRequest = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  return changeRequestView(em, deps, { caller, changeRequest });
}
