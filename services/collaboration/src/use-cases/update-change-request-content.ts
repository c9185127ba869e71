import type { AffectedPage, BranchContentChange } from "@imprint/proto/content/v1/editing";
import type { File } from "@imprint/proto/content/v1/revisions";
import type { EntityManager } from "@mikro-orm/postgresql";
import { callerMessage, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, readBranch, type ChangeRequestView } from "./shared/change-request-views.js";
import { addContributor, findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";

export interface UpdateChangeRequestContentInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  /** Content's changes, passed through: content validates and applies them. */
  changes: BranchContentChange[];
}

export interface ChangeRequestContentUpdate {
  revisionId: string;
  pages: AffectedPage[];
  insertedFiles: File[];
  view: ChangeRequestView;
}

/**
 * Applies a batch of content changes to an open or draft change request: content applies it to
 * the branch as one revision (or nothing, answering which change is wrong), then the change
 * request records the edit (the caller becomes a contributor; `revision.created` does the same
 * later, idempotently). Needs edit rights.
 */
export async function updateChangeRequestContent(
  em: EntityManager,
  input: UpdateChangeRequestContentInput,
  deps: UseCaseDeps,
): Promise<ChangeRequestContentUpdate> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const found = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  found.assertContentEditable();
  // The answer's branch and creator are read before anything changes; once content applied the
  // batch, the answer is built from what content answered (its new head), asking nobody.
  const [before, users] = await Promise.all([readBranch(deps, caller, found), loadUsers(deps, [found.createdBy])]);
  const updated = await deps.content.editing.updateBranchContent({
    caller: callerMessage(caller),
    spaceId: space.spaceId,
    changeRequestId: found.id,
    changes: input.changes,
  });
  const changeRequest = await deps.unitOfWork.run(em, async (tx) => {
    const locked = await findChangeRequest(tx, space.spaceId, found.id, { lock: true });
    const now = deps.clock();
    if (locked.recordCommit(now)) await addContributor(tx, locked, caller.userId, now);
    return locked;
  });
  return {
    revisionId: updated.revisionId,
    pages: updated.pages,
    insertedFiles: updated.insertedFiles,
    view: await changeRequestView(em, deps, { caller, changeRequest, branch: before ? { ...before, headRevisionId: updated.revisionId } : null, users }),
  };
}
