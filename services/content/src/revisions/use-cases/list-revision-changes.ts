import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageOfSorted, readPageRequest, type Page, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { findBranchMergedInto } from "../store/branch-rows.js";
import { requireCommittedRevision } from "./shared/branch-revisions.js";
import { changeSortKey, contentChanges, type ContentChange } from "../domain/changes/content-changes.js";
import { StoreSession } from "../store/session.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface RevisionChanges extends Page<ContentChange> {
  /** The revision compared against: the first parent; null for a revision without parents. */
  baseRevisionId: string | null;
  revisionId: string;
  /** Changes after this page. */
  remaining: number;
  /** For a merge revision, the change request it merged. */
  mergedChangeRequestId: string | null;
}

/** Tokens of this list carry the sort key of the last change of the previous page. */
const CHANGES_LIST = "revision-changes";

/**
 * What one revision changed: it against its first parent (for a merge, the revision it was made
 * on, so the changes are what the merge brought in; a first revision creates all it holds), in
 * ListBranchChanges' kinds and order, one page at a time. The diff skips the subtrees both trees
 * share (a revision and its parent share all they did not change), so the cost follows the size
 * of the change, not of the space. Needs view.
 */
export async function listRevisionChanges(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; page: PageRequestLike | undefined },
  deps: RevisionDeps,
): Promise<RevisionChanges> {
  const cursor = readPageRequest(input.page, CHANGES_LIST, ["string", "string", "string", "string"]);
  if (input.ref && input.ref.revisionId === "") throw AppError.invalidArgument("ref.revision_id: is required");
  if (input.ref && input.ref.changeRequestId !== "") throw AppError.invalidArgument("ref.change_request_id: must be empty (the revision names the content)");
  const { revision } = await openContent(em, deps, input);
  const parentId = revision.parents[0];
  const base = parentId === undefined ? null : await requireCommittedRevision(em, deps, parentId);
  // A revision's parents are of its space's history, in its store: the diff reads both trees there.
  if (base && base.storeId !== revision.storeId) throw new AppError("internal", `revision ${revision.id} has a parent in another store`);
  const changes = await contentChanges(new StoreSession(em, revision.storeId, deps.caches), base?.root ?? null, revision.root);
  const page = pageOfSorted(changes, changeSortKey, cursor);
  const last = page.items[page.items.length - 1];
  const remaining = last ? changes.length - changes.indexOf(last) - 1 : 0;
  const mergedChangeRequestId = revision.type === "merge" ? await findBranchMergedInto(em, revision.spaceId, revision.id) : null;
  return { ...page, baseRevisionId: base?.id ?? null, revisionId: revision.id, remaining, mergedChangeRequestId };
}
