import type { EntityManager } from "@mikro-orm/postgresql";
import { callerMessage, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { recordMerge } from "./shared/merges.js";
import { loadUsers } from "./shared/users.js";

export interface MergeChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
}

/**
 * Merges the change request's branch into the space (content does the three-way merge, and
 * answers CONFLICT naming the pages without changing anything), then records the merge here.
 * Merging a merged change request answers its merge again. Should this service fail between
 * content's merge and its own commit, content's `branch.merged` event records it later.
 */
export async function mergeChangeRequest(
  em: EntityManager,
  input: MergeChangeRequestInput,
  deps: UseCaseDeps,
): Promise<{ revisionId: string; view: ChangeRequestView }> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "merge");
  const found = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  if (found.status === "merged" && found.mergedRevisionId) {
    return { revisionId: found.mergedRevisionId, view: await changeRequestView(em, deps, { caller, changeRequest: found }) };
  }
  found.assertMergeable();
  // The creator is read before anything changes: once the merge is done, the answer asks nobody.
  const users = await loadUsers(deps, [found.createdBy]);
  const merged = await deps.content.branches.mergeBranch({ caller: callerMessage(caller), spaceId: space.spaceId, changeRequestId: found.id });
  const changeRequest = await deps.unitOfWork.run(em, (tx) => recordMerge(tx, deps, { changeRequestId: found.id, revisionId: merged.revisionId, actor: caller }));
  return { revisionId: merged.revisionId, view: await changeRequestView(em, deps, { caller, changeRequest, branch: merged.branch ?? null, users }) };
}
