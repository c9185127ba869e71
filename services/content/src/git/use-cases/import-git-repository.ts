import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql } from "@imprint/runtime";
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

/**
 * Writes the fetched content as one revision: a draft from `base`, the layout applied to it (only
 * what differs), then either a commit that moves the head (the head is still the base) or, when
 * the space moved since the base (edited between syncs), the import committed beside it and merged
 * three ways into the head in one transaction (a conflict answers 409 and writes nothing).
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
  },
): Promise<{ revisionId: string; importRevisionId: string; applied: AppliedLayout; merged: boolean }> {
  const { caller, spaceId, changeRequestId } = input;
  const draft = await openDraft(em, { caller, spaceId, parentRevisionId: input.baseRevisionId, changeRequestId }, deps);
  try {
    const applied = await editDraft(em, deps, { caller, draftId: draft.id }, (editor, opened, tx) =>
      applyLayout(tx, deps, { editor, draft: opened, layout: input.content.layout, blobs: input.content.blobs, mapping: input.mapping }),
    );
    const changed =
      applied.created + applied.updated + applied.deleted + applied.filesWritten + applied.filesDeleted + applied.reusablesWritten + applied.reusablesDeleted >
      0;
    if (!changed) {
      await discardDraft(em, { caller, draftId: draft.id }, deps);
      return { revisionId: "", importRevisionId: draft.parents[0]!, applied, merged: false };
    }
    const git = { ...input.commit };
    const message = revisionMessage(input.commit);
    try {
      const commit = await commitDraft(em, { caller, draftId: draft.id, message, moveHead: true, expectedHeadRevisionId: "", git }, deps);
      return { revisionId: commit.revisionId, importRevisionId: commit.revisionId, applied, merged: false };
    } catch (error) {
      // The head is not the base (edited since the last sync, or meanwhile): merge into it.
      if (!(error instanceof AppError && error.code === "conflict") || changeRequestId !== "") throw error;
    }
    const mergeId = await deps.unitOfWork.run(em, async (tx) => {
      const [locked] = await queryRows<{ revision_id: string | null; organization_id: string }>(
        tx,
        sql`select revision_id, organization_id from spaces where id = ${spaceId} for update`,
      );
      if (!locked?.revision_id) throw new AppError("failed_precondition", "space: has no revision yet");
      await commitDraft(tx, { caller, draftId: draft.id, message, moveHead: false, expectedHeadRevisionId: "", git }, deps);
      const now = deps.clock();
      const { revision } = await commitThreeWayMerge(tx, deps, {
        spaceId,
        ours: locked.revision_id,
        theirs: draft.id,
        base: draft.parents[0]!,
        type: "edits",
        message: `Merge Git import of ${shortOid(input.commit.oid)} into edits made since the last sync`,
        branchId: null,
        createdBy: caller.userId,
        now,
        git,
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
      return revision.id;
    });
    return { revisionId: mergeId, importRevisionId: draft.id, applied, merged: true };
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
 * ways into the current revision when the space changed since (409 naming the pages on a real
 * conflict, nothing written). A re-import of an unchanged commit writes nothing.
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
      };
    } else {
      written = await writeImport(em, deps, { caller, spaceId: space.id, changeRequestId, baseRevisionId, content, commit, mapping });
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
    };
  } catch (error) {
    await failOperation(em, space.id, operation, error, deps.clock()).catch(() => undefined);
    throw error;
  }
}
