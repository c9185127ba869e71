import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, sql } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { validateCommitMessage } from "../domain/drafts.js";
import { compareAndSetSpaceHead } from "../store/revision-rows.js";
import { compareAndSetBranchHead, findBranchById } from "../store/branch-rows.js";
import { isRevisionId, lockOwnDraft, recordRevisionCreated } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export interface CommitDraftInput {
  caller: CallerInput | undefined;
  draftId: string;
  message: string;
  moveHead: boolean;
  /** With moveHead: the head (the space's, or the branch's) must still be this; empty means the draft's parent. */
  expectedHeadRevisionId: string;
  /** Git metadata of the revision (the commit a Git import brought in); none by default. */
  git?: Record<string, unknown> | null;
}

export interface CommitResult {
  revisionId: string;
  parents: string[];
  movedHead: boolean;
}

/**
 * Turns the draft into an immutable revision and, when asked, makes it the space's current
 * revision (for a draft on a change request's branch: the branch's head, never the space's) by
 * compare-and-set on the expected head. If the head moved meanwhile the whole commit rolls back
 * with `conflict`: the draft stays open, nothing is lost, and the caller can open a new draft
 * from the new head. Records `revision.created`.
 */
export async function commitDraft(em: EntityManager, input: CommitDraftInput, deps: RevisionDeps): Promise<CommitResult> {
  const message = validateCommitMessage(input.message);
  if (input.expectedHeadRevisionId !== "" && !isRevisionId(input.expectedHeadRevisionId)) {
    throw AppError.invalidArgument("expected_head_revision_id: must be a revision id");
  }
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { draft, access, caller } = await lockOwnDraft(tx, deps, input);
    const now = deps.clock();
    let movedHead = false;
    if (input.moveHead && draft.branchId) {
      const expected = input.expectedHeadRevisionId || draft.parents[0] || "";
      movedHead = await compareAndSetBranchHead(tx, { branchId: draft.branchId, expected, next: draft.id, now });
      if (!movedHead) {
        if ((await findBranchById(tx, draft.branchId))?.mergedRevisionId) {
          throw new AppError("failed_precondition", "draft_id: the change request was merged; its branch takes no more commits");
        }
        throw AppError.conflict(
          "The change request's revision changed since this draft was opened; open a draft from the new revision and apply the changes again",
        );
      }
    } else if (input.moveHead) {
      const expected = input.expectedHeadRevisionId || draft.parents[0] || null;
      movedHead = await compareAndSetSpaceHead(tx, draft.spaceId, expected, draft.id);
      if (!movedHead) {
        throw AppError.conflict(
          "The space's current revision changed since this draft was opened; open a draft from the new revision and apply the changes again",
        );
      }
    }
    await executeStatement(
      tx,
      sql`update revisions set status = 'committed', message = ${message}, git = ${input.git ? JSON.stringify(input.git) : null}::jsonb, created_at = ${now}, committed_at = ${now} where id = ${draft.id}`,
    );
    recordRevisionCreated(tx, {
      organizationId: access.space.organizationId,
      actor: caller,
      spaceId: draft.spaceId,
      revisionId: draft.id,
      parents: draft.parents,
      movedHead,
      changeRequestId: draft.branchId,
    });
    return { revisionId: draft.id, parents: draft.parents, movedHead };
  });
  return result;
}
