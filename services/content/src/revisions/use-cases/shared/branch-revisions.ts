import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { conflictError, mergeRevisions, type MergeConflict, type MergePreference } from "../../domain/merge/index.js";
import type { RevisionHeader } from "../../domain/tree/caches.js";
import { findRevision, insertRevision } from "../../store/revision-rows.js";
import { StoreSession } from "../../store/session.js";
import { shareStoreLock } from "./drafts.js";
import type { BranchRecord } from "../../store/branch-rows.js";
import type { RevisionDeps } from "../../../deps.js";

/**
 * A committed revision a branch or a space points at. Heads, fork points and merge bases are
 * written only as committed revisions, so a missing one is a broken invariant, not bad input.
 */
export async function requireCommittedRevision(em: EntityManager, deps: Pick<RevisionDeps, "caches">, id: string): Promise<RevisionHeader> {
  const revision = await findRevision(em, deps.caches, id);
  if (!revision || revision.status !== "committed") throw new AppError("internal", `revision ${id} is missing`);
  return revision;
}

export interface ThreeWayMergeInput {
  spaceId: string;
  /** Revision ids: the side the result continues, the side brought in, and their merge base. */
  ours: string;
  theirs: string;
  base: string;
  /** What the merge revision says of itself ("edits" for a Git import merged into edited content). */
  type: "merge" | "update" | "edits";
  message: string;
  /** The branch the revision is made on; null for the space's own history. */
  branchId: string | null;
  createdBy: string;
  now: Date;
  /** Git metadata of the merge revision (a Git import merged into changed content); none by default. */
  git?: Record<string, unknown> | null;
  /** The side that settles what cannot be combined (see MergeInput); absent: that is a conflict. */
  prefer?: MergePreference;
  /** The revision's parents; [ours, theirs] by default. */
  parents?: string[];
}

export interface ThreeWayMerge {
  /** The merge revision written, committed, with parents [ours, theirs] (or the ones given). */
  revision: RevisionHeader;
  ours: RevisionHeader;
  theirs: RevisionHeader;
  /** Pages whose edits from both sides were combined. */
  mergedPages: number;
  /** Pages the merge revision changes relative to ours; null when theirs was taken whole (see MergeOutcome). */
  pagesChanged: number | null;
  /** What `prefer` settled (empty without it). */
  settled: MergeConflict[];
}

/**
 * The step MergeBranch and UpdateBranch share (in the caller's transaction): merges `theirs` into
 * `ours` over `base` on ours's store (share-locked so the purge's sweep waits) and writes the
 * result as a committed revision. Conflicts answer `conflict` naming them and write nothing.
 * Moving a head to the revision is the caller's part.
 */
export async function commitThreeWayMerge(tx: EntityManager, deps: Pick<RevisionDeps, "caches">, input: ThreeWayMergeInput): Promise<ThreeWayMerge> {
  const ours = await requireCommittedRevision(tx, deps, input.ours);
  const theirs = await requireCommittedRevision(tx, deps, input.theirs);
  const base = await requireCommittedRevision(tx, deps, input.base);
  await shareStoreLock(tx, ours.storeId);
  const outcome = await mergeRevisions(new StoreSession(tx, ours.storeId, deps.caches), {
    base,
    ours,
    theirs,
    now: input.now,
    ...(input.prefer ? { prefer: input.prefer } : {}),
  });
  if (outcome.kind === "conflict") throw conflictError(outcome.conflicts);

  const revision: RevisionHeader = {
    id: randomUUID(),
    spaceId: input.spaceId,
    storeId: ours.storeId,
    parents: input.parents ?? [ours.id, theirs.id],
    status: "committed",
    root: outcome.root,
    variables: outcome.variables,
    type: input.type,
    message: input.message,
    git: input.git ?? null,
    createdBy: input.createdBy,
    createdAt: input.now,
    committedAt: input.now,
    branchId: input.branchId,
  };
  await insertRevision(tx, revision);
  return { revision, ours, theirs, mergedPages: outcome.mergedPages, pagesChanged: outcome.pagesChanged, settled: outcome.settled };
}

/**
 * The info line of a merge or an update with its figures. `pages_changed` is absent when the other
 * side was taken whole (`fast_forward`): counting its pages would cost a diff only for the log.
 */
export function logMerge(
  deps: Pick<RevisionDeps, "logger">,
  message: string,
  merge: { branch: BranchRecord; revisionId: string; mergedPages: number; pagesChanged: number | null; started: number },
): void {
  deps.logger.info(message, {
    space_id: merge.branch.spaceId,
    change_request: merge.branch.number,
    revision_id: merge.revisionId,
    ...(merge.pagesChanged === null ? { fast_forward: true } : { pages_changed: merge.pagesChanged }),
    pages_combined: merge.mergedPages,
    duration_ms: Math.round(performance.now() - merge.started),
  });
}
