import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { mergeBaseOf } from "../store/branch-rows.js";
import { requireCommittedRevision } from "./shared/branch-revisions.js";
import { changeSortKey, contentChanges, type ContentChange } from "../domain/changes/content-changes.js";
import { StoreSession } from "../store/session.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface BranchChanges extends Page<ContentChange> {
  /** The revision compared against: the branch's merge base. */
  baseRevisionId: string;
  /** The revision compared: the branch's head. */
  revisionId: string;
  /** Changes after this page. */
  remaining: number;
}

/** Tokens of this list carry the sort key of the last change of the previous page. */
const CHANGES_LIST = "branch-changes";

/**
 * What a change request changes: its branch's head against its merge base (the space's revision
 * last brought in by an update, else the fork point), as pages created, edited, deleted and moved
 * and files created, edited and deleted, one page of them at a time. A merged branch keeps its
 * head and base as they were at the merge, so it answers what the merge brought in. The diff
 * skips the subtrees both trees share: the cost follows the size of the change, not of the space.
 * Needs view.
 */
export async function listBranchChanges(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; page: PageRequestLike | undefined },
  deps: RevisionDeps,
): Promise<BranchChanges> {
  const cursor = readPageRequest(input.page, CHANGES_LIST, ["string", "string", "string", "string"]);
  if (input.ref && input.ref.changeRequestId === "") throw AppError.invalidArgument("ref.change_request_id: is required");
  if (input.ref && input.ref.revisionId !== "")
    throw AppError.invalidArgument("ref.revision_id: must be empty (the changes are those of the change request's head)");
  const { branch, revision: head } = await openContent(em, deps, input);
  const base = await requireCommittedRevision(em, deps, mergeBaseOf(branch!));
  const changes = await contentChanges(new StoreSession(em, head.storeId, deps.caches), base.root, head.root);
  const page = pageOfSorted(changes, changeSortKey, cursor);
  const last = page.items[page.items.length - 1];
  const remaining = last ? changes.length - changes.indexOf(last) - 1 : 0;
  return { ...page, baseRevisionId: base.id, revisionId: head.id, remaining };
}
