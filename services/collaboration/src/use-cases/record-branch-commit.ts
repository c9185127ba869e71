import { type EntityManager } from "@mikro-orm/postgresql";
import { findOwnedOrNull } from "@imprint/runtime";
import { ChangeRequest } from "../domain/change-request.js";
import { addContributor } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";

/**
 * A revision was committed on a change request's branch (`revision.created` with a
 * `changeRequestId`): its author becomes a contributor and the change request was updated now.
 * Commits of branches this service does not know (yet) change nothing; a commit delivered after
 * the merge still names its author (the updated time of a merged change request stays).
 */
export async function recordBranchCommit(
  em: EntityManager,
  input: { spaceId: string; changeRequestId: string; userId: string | null },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<void> {
  const changeRequest = await findOwnedOrNull(em, ChangeRequest, { spaceId: input.spaceId }, input.changeRequestId, { lock: true });
  if (!changeRequest) return;
  const now = deps.clock();
  // A merged branch takes no commit after its merge: this one came before it and was delivered
  // late, so its author still contributed (any delivery order ends with the same contributors).
  changeRequest.recordCommit(now);
  if (input.userId) await addContributor(em, changeRequest, input.userId, now);
}
