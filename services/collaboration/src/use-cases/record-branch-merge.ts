import type { EntityManager } from "@mikro-orm/postgresql";
import { ChangeRequest } from "../domain/change-request.js";
import type { CallerInput } from "./shared/access.js";
import type { UseCaseDeps } from "../deps.js";
import { recordMerge } from "./shared/merges.js";

/**
 * Content merged a change request's branch (`branch.merged`): records the merge unless the merge
 * call already did, which repairs a failure between content's merge and this service's commit.
 */
export async function recordBranchMerge(
  em: EntityManager,
  input: { changeRequestId: string; revisionId: string; actor: CallerInput | null },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<void> {
  if (!(await em.count(ChangeRequest, { id: input.changeRequestId }))) return;
  await recordMerge(em, deps, input);
}
