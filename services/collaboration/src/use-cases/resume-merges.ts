import type { EntityManager } from "@mikro-orm/postgresql";
import type { Branch } from "@imprint/proto/content/v1/branches";
import { AppError, type ErrorCode } from "@imprint/runtime";
import { ChangeRequest } from "../domain/change-request.js";
import { PendingMerge } from "../domain/pending-merge.js";
import { callerMessage, type CallerInput } from "./shared/access.js";
import type { UseCaseDeps } from "../deps.js";
import { recordMerge } from "./shared/merges.js";

/** Intents looked at per round, oldest first. */
const BATCH = 50;
/** Content's answers that will not change on a retry: the intent's caller cannot read the branch any more. */
const FINAL: ReadonlySet<ErrorCode> = new Set(["not_found", "permission_denied", "unauthenticated", "invalid_argument", "failed_precondition"]);

export interface ResumeMergesInput {
  /**
   * How long an intent whose branch content has not merged may still be a merge in flight (the
   * merge call's deadline, with a margin); after it, the merge did not happen and is dropped.
   */
  inFlightMs: number;
}

/**
 * Finishes or drops merges left pending by an interruption (see PendingMerge): asks content for
 * each one's branch; merged there → records the merge here (as the merge call would have);
 * not merged, and too old to be in flight → drops the intent (the change request stays as it
 * was, open or draft). Content unreachable → kept for the next round. Answers how many are left
 * (the caller runs again soon while some are).
 */
export async function resumeMerges(
  em: EntityManager,
  input: ResumeMergesInput,
  deps: Pick<UseCaseDeps, "clock" | "content" | "unitOfWork">,
): Promise<{ remaining: number }> {
  const intents = await em.find(PendingMerge, {}, { orderBy: { requestedAt: "asc" }, limit: BATCH });
  let remaining = 0;
  for (const intent of intents) {
    const caller: CallerInput = { userId: intent.userId, tokenId: intent.tokenId ?? undefined };
    // Only this intent: a merge asked again meanwhile wrote a newer one (the database may keep
    // microseconds the Date lost, hence the bound rather than equality).
    const drop = () =>
      em.nativeDelete(PendingMerge, { changeRequestId: intent.changeRequestId, requestedAt: { $lt: new Date(intent.requestedAt.getTime() + 1) } });
    let branch: Branch | undefined;
    try {
      const answer = await deps.content.branches.batchGetBranches({
        caller: callerMessage(caller),
        spaceId: intent.spaceId,
        changeRequestIds: [intent.changeRequestId],
      });
      branch = answer.branches[0];
    } catch (error) {
      if (error instanceof AppError && FINAL.has(error.code)) await drop();
      else remaining += 1;
      continue;
    }
    const revisionId = branch?.mergedRevisionId;
    if (revisionId) {
      await deps.unitOfWork.run(em, async (tx) => {
        if (await tx.count(ChangeRequest, { id: intent.changeRequestId }))
          await recordMerge(tx, deps, { changeRequestId: intent.changeRequestId, revisionId, actor: caller });
        await tx.nativeDelete(PendingMerge, { changeRequestId: intent.changeRequestId });
      });
    } else if (deps.clock().getTime() - intent.requestedAt.getTime() >= input.inFlightMs) {
      await drop();
    } else {
      remaining += 1;
    }
  }
  return { remaining };
}
