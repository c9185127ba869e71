import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, recordEvent, sql } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import {
  requireBranch,
  requireUnmerged,
  commitThreeWayMerge,
  compareAndSetSpaceHead,
  findRevision,
  commitDraft,
  discardDraft,
  openDraft,
  editDraft,
  recordRevisionCreated,
} from "../../revisions/index.js";
import { gitSyncConflictKept } from "../../events.js";
import type { GitSyncPriority } from "../domain/git-sync.js";
import { readLayout, type Layout } from "../domain/read-layout.js";
import { fetchRef, readBlobs, readCommit, readTree } from "../store/repository.js";
import { applyLayout, type AppliedLayout } from "./shared/apply-layout.js";
import { parseRemoteRequest, shortOid, withRemote, type RemoteRequest } from "./shared/remote-access.js";
import { beginSyncOperation, completeOperation, completeSync, failOperation } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

export interface ImportGitRepositoryInput {
  caller: CallerInput | undefined;
  ref: { spaceId: string; changeRequestId: string; revisionId: string } | undefined;
  url: string;
  gitRef: string;
  projectDirectory: string;
}

export interface GitCommitValue {
  oid: string;
  message: string;
  ref: string;
  createdByService: boolean;
}

export interface ImportGitResult {
  /** The new head; empty when the repository already matched the content. */
  revisionId: string;
  commit: GitCommitValue;
  created: number;
  updated: number;
  deleted: number;
  filesWritten: number;
  merged: boolean;
  /** What both sides changed and the connection's priority settled; the other side's version waits in a kept revision for a change request. */
  settled: number;
}

/** What the fetch brought: the commit and the content it lays out. */
interface FetchedContent {
  oid: string;
  message: string;
  /** Whether an export of Imprint made the commit. */
  byService: boolean;
  layout: Layout;
  blobs: Map<string, Buffer>;
}

async function fetchContent(request: RemoteRequest, deps: GitDeps): Promise<FetchedContent> {
  return withRemote(request, deps, async (workspace, network) => {
    const oid = await fetchRef(workspace, network, request.ref, deps.limits);
    const { message, byService } = await readCommit(workspace, oid);
    const tree = await readTree(workspace, oid, deps.limits);
    const layout = await readLayout({ tree, directory: request.directory, read: (oids) => readBlobs(workspace, oids, deps.limits), limits: deps.limits });
    for (const file of layout.files) {
      if (file.size > deps.limits.maxFileBytes) {
        throw new AppError("payload_too_large", `${file.path}: file larger than the limit of ${deps.limits.maxFileBytes} bytes (GIT_MAX_FILE_BYTES)`);
      }
    }
    const blobs = await readBlobs(
      workspace,
      layout.files.map((file) => file.oid),
      deps.limits,
    );
    return { oid, message, byService, layout, blobs };
  });
}

const revisionMessage = (commit: GitCommitValue) => `Import from Git: ${commit.message.split("\n")[0] ?? ""} (${shortOid(commit.oid)})`.slice(0, 1000);

/** Most conflicts a `git_sync.conflict_kept` event names (the change request's description lists them). */
const KEPT_CONFLICTS_NAMED = 100;

/**
 * Writes the fetched content as one revision: a draft from `base`, the layout applied to it (only
 * what differs), then either a commit that moves the head (the head is still the base) or, when
 * the space moved since the base (edited between syncs), the import committed beside it and merged
 * three ways into the head in one transaction. A conflict answers 409 and writes nothing, unless
 * the space is connected (`priority`): then the priority side's version wins in the space, and the
 * other side's is kept in the same transaction as a revision on top of the new head, which
 * `git_sync.conflict_kept` hands to collaboration to open as a change request (never lost).
 */
async function writeImport(
  em: EntityManager,
  deps: GitDeps,
  input: {
    caller: CallerInput;
    spaceId: string;
    changeRequestId: string;
    baseRevisionId: string;
    content: FetchedContent;
    commit: GitCommitValue;
    mapping: { pages: Record<string, string>; files: Record<string, string> };
    /** The connection's priority rule; absent when the space is not connected (a conflict is refused). */
    priority: GitSyncPriority | undefined;
  },
): Promise<{ revisionId: string; importRevisionId: string; applied: AppliedLayout; merged: boolean; settled: number }> {
  const { caller, spaceId, changeRequestId } = input;
  const draft = await openDraft(em, { caller, spaceId, parentRevisionId: input.baseRevisionId, changeRequestId }, deps);
  try {
    const applied = await editDraft(em, deps, { caller, draftId: draft.id }, (editor, opened, tx) =>
      applyLayout(tx, deps, {
        editor,
        draft: opened,
        layout: input.content.layout,
        blobs: input.content.blobs,
        mapping: input.mapping,
        linkSites: deps.linkSites,
      }),
    );
    const changed =
      applied.created + applied.updated + applied.deleted + applied.filesWritten + applied.filesDeleted + applied.reusablesWritten + applied.reusablesDeleted >
      0;
    if (!changed) {
      await discardDraft(em, { caller, draftId: draft.id }, deps);
      return { revisionId: "", importRevisionId: draft.parents[0]!, applied, merged: false, settled: 0 };
    }
    const git = { ...input.commit };
    const message = revisionMessage(input.commit);
    try {
      const commit = await commitDraft(em, { caller, draftId: draft.id, message, moveHead: true, expectedHeadRevisionId: "", git }, deps);
      return { revisionId: commit.revisionId, importRevisionId: commit.revisionId, applied, merged: false, settled: 0 };
    } catch (error) {
      // The head is not the base (edited since the last sync, or meanwhile): merge into it.
      if (!(error instanceof AppError && error.code === "conflict") || changeRequestId !== "") throw error;
    }
    const { priority } = input;
    const merged = await deps.unitOfWork.run(em, async (tx) => {
      const [locked] = await queryRows<{ revision_id: string | null; organization_id: string }>(
        tx,
        sql`select revision_id, organization_id from spaces where id = ${spaceId} for update`,
      );
      if (!locked?.revision_id) throw new AppError("failed_precondition", "space: has no revision yet");
      await commitDraft(tx, { caller, draftId: draft.id, message, moveHead: false, expectedHeadRevisionId: "", git }, deps);
      const now = deps.clock();
      // Ours is the space's content, theirs the import.
      const sides = { spaceId, ours: locked.revision_id, theirs: draft.id, base: draft.parents[0]!, branchId: null, createdBy: caller.userId, now };
      const { revision, settled } = await commitThreeWayMerge(tx, deps, {
        ...sides,
        type: "edits",
        message: `Merge Git import of ${shortOid(input.commit.oid)} into edits made since the last sync`,
        git,
        ...(priority ? { prefer: priority === "git" ? "theirs" : "ours" } : {}),
      });
      if (!(await compareAndSetSpaceHead(tx, spaceId, locked.revision_id, revision.id)))
        throw new AppError("internal", "the locked space head moved during a Git import");
      recordRevisionCreated(tx, {
        organizationId: locked.organization_id,
        actor: caller,
        spaceId,
        revisionId: revision.id,
        parents: revision.parents,
        movedHead: true,
      });
      if (priority && settled.length > 0) {
        // The losing side's version of what conflicted, on top of the new content: the change request's head.
        const gitWon = priority === "git";
        const kept = await commitThreeWayMerge(tx, deps, {
          ...sides,
          type: "edits",
          message: `Keep ${gitWon ? "Imprint's" : "Git's"} version of what conflicted with the Git import of ${shortOid(input.commit.oid)}`,
          prefer: gitWon ? "ours" : "theirs",
          parents: [revision.id, gitWon ? locked.revision_id : draft.id],
        });
        recordEvent(tx, gitSyncConflictKept, {
          organizationId: locked.organization_id,
          actor: caller,
          payload: {
            spaceId,
            revisionId: kept.revision.id,
            baseRevisionId: revision.id,
            winner: priority,
            commit: input.commit.oid,
            conflicts: settled.slice(0, KEPT_CONFLICTS_NAMED).map((conflict) => `${conflict.title}: ${conflict.reason}`),
          },
        });
      }
      return { revisionId: revision.id, settled: settled.length };
    });
    return { revisionId: merged.revisionId, importRevisionId: draft.id, applied, merged: true, settled: merged.settled };
  } catch (error) {
    await discardDraft(em, { caller, draftId: draft.id }, deps).catch((discardError: unknown) =>
      deps.logger.warn("git import: could not discard the draft", { draftId: draft.id, err: discardError }),
    );
    throw error;
  }
}

/**
 * Imports a Git repository (GitBook's Git Sync layout, or plain markdown folders) into a space, or
 * into a change request's branch, as one revision. Needs edit rights, checked before anything is
 * fetched. The import is built on the revision of the last sync of this remote (else on the
 * current one) so that pages the repository did not change keep their versions, and merged three
 * ways into the current revision when the space changed since. On a real conflict, a connected
 * space follows its priority rule (the other side kept for a change request); any other answers
 * 409 naming the pages and writes nothing. A re-import of an unchanged commit writes nothing.
 */
export async function importGitRepository(em: EntityManager, input: ImportGitRepositoryInput, deps: GitDeps): Promise<ImportGitResult> {
  const caller = requireCaller(input.caller);
  if (!input.ref?.spaceId) throw AppError.invalidArgument("ref.space_id: is required");
  if (input.ref.revisionId !== "") throw AppError.invalidArgument("ref.revision_id: must be empty (imports build on the latest content)");
  const request = parseRemoteRequest(
    caller,
    { spaceId: input.ref.spaceId, url: input.url, gitRef: input.gitRef, projectDirectory: input.projectDirectory },
    deps,
  );
  const changeRequestId = input.ref.changeRequestId;
  const { space } = await requireSpaceAccess(em, deps, { caller, spaceId: request.spaceId, need: "edit" });
  if (changeRequestId !== "") requireUnmerged(await requireBranch(em, space.id, changeRequestId), "ref.change_request_id");

  const { target, started, operation, sync, synced } = await beginSyncOperation(em, space, request, "import", deps);
  try {
    const content = await fetchContent(request, deps);
    const commit: GitCommitValue = {
      oid: content.oid,
      message: content.message,
      ref: request.ref,
      createdByService: content.byService,
    };
    const onSpace = changeRequestId === "";
    // The base: the revision of the last sync of this remote, when it is still there.
    let baseRevisionId = "";
    if (onSpace && synced?.revisionId) {
      const base = await findRevision(em, deps.caches, synced.revisionId);
      if (base && base.spaceId === space.id && base.status === "committed") baseRevisionId = base.id;
    }
    const mapping = { pages: synced?.pages ?? sync?.pages ?? {}, files: synced?.files ?? sync?.files ?? {} };

    let written: Awaited<ReturnType<typeof writeImport>>;
    if (onSpace && synced && synced.commitOid === content.oid && baseRevisionId) {
      // The repository did not move since the last sync: nothing to bring in.
      written = {
        revisionId: "",
        importRevisionId: baseRevisionId,
        applied: {
          created: 0,
          updated: 0,
          deleted: 0,
          filesWritten: 0,
          filesDeleted: 0,
          reusablesWritten: 0,
          reusablesDeleted: 0,
          pages: mapping.pages,
          files: mapping.files,
        },
        merged: false,
        settled: 0,
      };
    } else {
      const priority = onSpace ? synced?.connection?.priority : undefined;
      written = await writeImport(em, deps, { caller, spaceId: space.id, changeRequestId, baseRevisionId, content, commit, mapping, priority });
    }

    const now = deps.clock();
    if (onSpace) {
      await completeSync(
        em,
        target,
        operation,
        {
          commitOid: commit.oid,
          commitMessage: commit.message,
          commitByService: commit.createdByService,
          revisionId: written.importRevisionId || null,
          pages: written.applied.pages,
          files: written.applied.files,
        },
        now,
      );
    } else {
      await completeOperation(em, space.id, operation, now);
    }
    deps.logger.info("git import finished", {
      space_id: space.id,
      change_request_id: changeRequestId || undefined,
      url: target.url,
      ref: request.ref,
      commit: commit.oid,
      revision_id: written.revisionId || undefined,
      pages_created: written.applied.created,
      pages_updated: written.applied.updated,
      pages_deleted: written.applied.deleted,
      files_written: written.applied.filesWritten,
      reusable_contents_written: written.applied.reusablesWritten,
      reusable_contents_deleted: written.applied.reusablesDeleted,
      merged: written.merged,
      conflicts_settled: written.settled || undefined,
      duration_ms: Math.round(performance.now() - started),
    });
    return {
      revisionId: written.revisionId,
      commit,
      created: written.applied.created,
      updated: written.applied.updated,
      deleted: written.applied.deleted,
      filesWritten: written.applied.filesWritten,
      merged: written.merged,
      settled: written.settled,
    };
  } catch (error) {
    await failOperation(em, space.id, operation, error, deps.clock()).catch(() => undefined);
    throw error;
  }
}
