import { createHash } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { ChangeRequest, DESCRIPTION_MAX, SUBJECT_MAX } from "../domain/change-request.js";
import { requireSpace, type CallerInput } from "./shared/access.js";
import { openChangeRequest } from "./shared/open-change-request.js";
import type { UseCaseDeps } from "../deps.js";

export interface KeptConflictInput {
  spaceId: string;
  /** The kept revision: the space's content with the losing side's version of what conflicted. */
  revisionId: string;
  /** The side that won in the space: `git` or `imprint`. */
  winner: string;
  /** The imported commit. */
  commit: string;
  /** What conflicted, as a person recognises it. */
  conflicts: string[];
  /** Who the import ran for (the user who connected the space). */
  actor: CallerInput | null;
}

/**
 * The change request's id for a kept revision: the same for every delivery of the event, so a
 * repeat after content forked the branch (this service's commit failed) finds it and goes on.
 */
export function keptChangeRequestId(revisionId: string): string {
  const hex = createHash("sha256").update(`git_sync.conflict_kept:${revisionId}`).digest("hex");
  // An RFC 9562 version 8 (custom) UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const shortOid = (oid: string) => oid.slice(0, 7);

/**
 * Content's `git_sync.conflict_kept`: opens the change request that keeps the side a Git Sync
 * import's priority rule overruled (its branch starts at the kept revision, so it shows exactly
 * that side's version of what conflicted), on behalf of the user who connected the space. Once per
 * kept revision. Answers false, opening nothing, when that user may no longer edit the space or
 * the space is gone (the kept revision stays in the space's history).
 */
export async function openKeptChangeRequest(
  em: EntityManager,
  input: KeptConflictInput,
  deps: Pick<UseCaseDeps, "content" | "clock" | "unitOfWork">,
): Promise<boolean> {
  const { actor } = input;
  if (!actor) return false;
  const id = keptChangeRequestId(input.revisionId);
  if (await em.count(ChangeRequest, { id })) return true;
  let space;
  try {
    space = await requireSpace(deps, actor, input.spaceId, "edit");
  } catch (error) {
    if (error instanceof AppError && (error.code === "not_found" || error.code === "permission_denied")) return false;
    throw error;
  }
  const [kept, won] = input.winner === "git" ? ["Imprint", "the repository"] : ["the repository", "Imprint"];
  const subject = `Git Sync: ${kept}'s version of what conflicted with ${shortOid(input.commit)}`.slice(0, SUBJECT_MAX);
  const listed = input.conflicts.map((conflict) => `- ${conflict}`).join("\n");
  const description = [
    `Git Sync imported commit ${input.commit}, and both sides had changed the same things since the last sync.`,
    `The connection's priority gave ${won}'s version to the space. This change request keeps ${kept}'s version of them:`,
    `merge it to apply it, or close it to keep ${won}'s.`,
    "",
    listed,
  ]
    .join("\n")
    .slice(0, DESCRIPTION_MAX);
  await deps.unitOfWork.run(em, (tx) =>
    openChangeRequest(tx, deps, { caller: actor, space, id, subject, description, agentTaskId: null, headRevisionId: input.revisionId }),
  );
  return true;
}
