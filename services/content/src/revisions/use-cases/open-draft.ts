import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import { findRevision, insertRevision } from "../store/revision-rows.js";
import { requireBranch, requireUnmerged } from "../store/branch-rows.js";
import { isRevisionId } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export interface OpenDraftInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** Empty: the space's current revision (with changeRequestId: the branch's head). */
  parentRevisionId: string;
  /** A change request (id or number) whose branch the draft edits; empty for the space's own history. */
  changeRequestId?: string;
}

/**
 * Opens a draft: a new uncommitted revision of the space whose content starts as its parent's
 * (same tree root: nothing is copied). Needs edit rights on the space. On a change request's
 * branch the draft starts from the branch's head and its commit moves that head instead of the
 * space's; a merged change request takes no more edits.
 */
export async function openDraft(em: EntityManager, input: OpenDraftInput, deps: RevisionDeps): Promise<RevisionHeader> {
  const caller = requireCaller(input.caller);
  return em.transactional(async (tx) => {
    const { space } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "edit" });
    const branch = input.changeRequestId ? await requireBranch(tx, space.id, input.changeRequestId) : null;
    if (branch) requireUnmerged(branch);
    const parentId = input.parentRevisionId || (branch ? branch.headRevisionId : space.revisionId);
    if (!parentId) throw new AppError("failed_precondition", "space: has no revision yet");
    const parent = isRevisionId(parentId) ? await findRevision(tx, deps.caches, parentId) : undefined;
    if (!parent || parent.spaceId !== space.id || parent.status !== "committed") {
      throw new AppError("not_found", "parent_revision_id: no committed revision with this id in the space");
    }
    const draft: RevisionHeader = {
      id: randomUUID(),
      spaceId: space.id,
      storeId: parent.storeId,
      parents: [parent.id],
      status: "draft",
      root: parent.root,
      variables: parent.variables,
      type: "edits",
      message: "",
      git: null,
      createdBy: caller.userId,
      createdAt: deps.clock(),
      committedAt: null,
      branchId: branch?.id ?? null,
    };
    await insertRevision(tx, draft);
    return draft;
  });
}
