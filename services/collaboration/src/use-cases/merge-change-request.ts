import type { EntityManager } from "@mikro-orm/postgresql";
import type { MergeBranchResponse } from "@imprint/proto/content/v1/branches";
import { AppError, infrastructureFailure, type ErrorCode } from "@imprint/runtime";
import type { ChangeRequest } from "../domain/change-request.js";
import { PendingMerge } from "../domain/pending-merge.js";
import { callerMessage, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { changeRequestView, openCommentCounts, type ChangeRequestView } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { recordMerge } from "./shared/merges.js";
import { requireMergeRules } from "./shared/merge-rules.js";
import { loadUsers } from "./shared/users.js";

/** Failures after which content may still have merged (or may yet): left to the merge resumer. */
const UNSETTLED: ReadonlySet<ErrorCode> = new Set(["unavailable", "deadline_exceeded", "internal", "upstream_failed"]);

export interface MergeChangeRequestInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
}

/**
 * Merges the change request's branch into the space once the organization's merge rules pass
 * (CONFLICT naming the rule broken; see requireMergeRules): content does the three-way merge (and
 * answers CONFLICT naming the pages without changing anything), then the merge is recorded here.
 * Merging a merged change request answers its merge again. Should the call be interrupted (this
 * process or content stopped, the answer lost), the intent recorded before it lets the merge
 * resumer record the merge or drop it within seconds; content's `branch.merged` event records it too.
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
  await requireMergeRules(em, deps, caller, space, found);
  // What the answer shows besides the merge is read before anything changes: once content merged,
  // the answer asks nobody, not even this service's database.
  const [users, openComments] = await Promise.all([
    loadUsers(deps, [found.createdBy]),
    openCommentCounts(em, found.spaceId, [found.id]).then((counts) => counts.get(found.id) ?? 0),
  ]);
  // The intent is committed before content is asked: should this process or content stop, or the
  // answer be lost, the merge resumer finishes it (content merged) or drops it (it did not). It
  // leaves a keyed call's idempotency key unclaimed: a repeat after a stop here merges again
  // (content answers a merged branch's merge again), and the record below claims the key.
  const requestedAt = deps.clock();
  await deps.unitOfWork.run(
    em,
    (tx) =>
      tx.upsert(PendingMerge, {
        changeRequestId: found.id,
        spaceId: found.spaceId,
        organizationId: found.organizationId,
        userId: caller.userId,
        tokenId: caller.tokenId ?? null,
        requestedAt,
      }),
    { claimsKeyedCall: false },
  );
  let merged: MergeBranchResponse;
  try {
    merged = await deps.content.branches.mergeBranch({
      caller: callerMessage(caller),
      spaceId: space.spaceId,
      changeRequestId: found.id,
      subject: found.subject,
    });
  } catch (error) {
    // An answer from content (a conflict, a refusal) means nothing was merged: no intent is left.
    // Anything else (content unreachable, no answer in time) is for the resumer to settle.
    if (error instanceof AppError && !UNSETTLED.has(error.code)) await em.nativeDelete(PendingMerge, { changeRequestId: found.id, requestedAt }).catch(() => 0);
    else deps.merges.wake();
    throw error;
  }
  let changeRequest: ChangeRequest;
  try {
    changeRequest = await deps.unitOfWork.run(em, async (tx) => {
      const recorded = await recordMerge(tx, deps, { changeRequestId: found.id, revisionId: merged.revisionId, actor: caller });
      await tx.nativeDelete(PendingMerge, { changeRequestId: found.id });
      return recorded;
    });
  } catch (error) {
    const failure = infrastructureFailure(error);
    if (!(failure && UNSETTLED.has(failure.code))) throw error;
    // Content merged: the merge is done whatever happens here. This database (or the caller's
    // patience) failed only its record, which the intent left above lets the resumer (or content's
    // `branch.merged`) write once it answers; so the answer is the merge, not an error that would
    // hide it.
    deps.merges.wake();
    found.markMerged(merged.revisionId, deps.clock());
    changeRequest = found;
  }
  return {
    revisionId: merged.revisionId,
    view: await changeRequestView(em, deps, { caller, changeRequest, branch: merged.branch ?? null, users, openComments }),
  };
}
