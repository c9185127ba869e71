import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { openContent } from "../../revisions/index.js";
import { EXPORT_AUTHOR, fetchRef, pushCommit, remoteHead, writeCommit } from "../store/repository.js";
import { writeLayout, type WrittenLayout } from "../domain/write-layout.js";
import type { GitCommitValue } from "./import-git-repository.js";
import { parseRemoteRequest, shortOid, withRemote } from "./shared/remote-access.js";
import { beginSyncOperation, completeSync, failOperation } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

export interface ExportToGitRepositoryInput {
  caller: CallerInput | undefined;
  spaceId: string;
  url: string;
  gitRef: string;
  commitMessage: string;
  projectDirectory: string;
  /** The commit's author (Git Sync: who merged or edited); absent: Imprint. The committer is always Imprint. */
  author?: { name: string; email: string };
}

export interface ExportGitResult {
  commit: GitCommitValue;
  pushed: boolean;
  files: number;
}

export const COMMIT_MESSAGE_MAX = 10_000;

/** The space's current content in the Git Sync layout, within the limits. */
async function layoutOfSpace(em: EntityManager, deps: GitDeps, caller: CallerInput, spaceId: string): Promise<{ revisionId: string; layout: WrittenLayout }> {
  const { view, revision } = await openContent(em, deps, { caller, ref: { spaceId, changeRequestId: "", revisionId: "" } });
  const index = await view.index();
  if (index.byId.size > deps.limits.maxPages) {
    throw new AppError("payload_too_large", `space: more than ${deps.limits.maxPages} pages to export (GIT_MAX_PAGES)`);
  }
  const bodyIds = [...index.byId.values()].map((page) => page.bodyId).filter((id): id is string => id !== null);
  const records = await view.bodies(bodyIds, { keep: false });
  const bodies = new Map<string, string>();
  for (const page of index.byId.values()) bodies.set(page.pageId, page.bodyId ? (records.get(page.bodyId)?.markdown ?? "") : "");
  const files = await view.allFiles();
  if (files.length > deps.limits.maxFiles) throw new AppError("payload_too_large", `space: more than ${deps.limits.maxFiles} files to export (GIT_MAX_FILES)`);
  const fileBytes = new Map<string, Buffer>();
  let total = 0;
  for (const file of files) {
    if (file.size > deps.limits.maxFileBytes) {
      throw new AppError("payload_too_large", `file ${file.name}: larger than the limit of ${deps.limits.maxFileBytes} bytes (GIT_MAX_FILE_BYTES)`);
    }
    const bytes = await deps.blobStore.get(file.blobKey);
    if (!bytes) throw new AppError("internal", `the bytes of file ${file.fileId} are missing`);
    total += bytes.length;
    if (total > deps.limits.maxRepositoryBytes) {
      throw new AppError(
        "payload_too_large",
        `space: files larger than the repository limit of ${deps.limits.maxRepositoryBytes} bytes (GIT_MAX_REPOSITORY_BYTES)`,
      );
    }
    fileBytes.set(file.fileId, bytes);
  }
  const reusableRecords = await view.allReusables();
  const reusableBodies = await view.bodies(reusableRecords.flatMap((item) => (item.bodyId ? [item.bodyId] : [])));
  const reusables = reusableRecords.map((item) => ({
    reusableContentId: item.reusableContentId,
    title: item.title,
    markdown: item.bodyId ? (reusableBodies.get(item.bodyId)?.markdown ?? "") : "",
    bodyId: item.bodyId,
  }));
  return { revisionId: revision.id, layout: writeLayout({ index, bodies, files, fileBytes, reusables, linkSites: deps.linkSites }) };
}

/**
 * Exports the space's current content to a Git repository as one commit on top of the ref and
 * pushes it (files that did not change keep their blob oids). Needs edit rights. Never overwrites
 * commits it has not seen: when the ref has commits since the last sync with this remote (or the
 * space was never synced with a ref that exists), it answers 409 asking for an import first; a
 * push that loses a race is refused by the remote and answers the same. Nothing is pushed when the
 * repository already holds this content.
 */
export async function exportToGitRepository(em: EntityManager, input: ExportToGitRepositoryInput, deps: GitDeps): Promise<ExportGitResult> {
  const caller = requireCaller(input.caller);
  const request = parseRemoteRequest(caller, { spaceId: input.spaceId, url: input.url, gitRef: input.gitRef, projectDirectory: input.projectDirectory }, deps);
  const message = input.commitMessage.trim();
  if (message === "") throw AppError.invalidArgument("commitMessage: is required");
  if (message.length > COMMIT_MESSAGE_MAX) throw AppError.invalidArgument(`commitMessage: must be at most ${COMMIT_MESSAGE_MAX} characters`);
  const { space } = await requireSpaceAccess(em, deps, { caller, spaceId: request.spaceId, need: "edit" });

  const { target, started, operation, synced } = await beginSyncOperation(em, space, request, "export", deps);
  try {
    const { revisionId, layout } = await layoutOfSpace(em, deps, caller, space.id);
    const outcome = await withRemote(request, deps, async (workspace, network) => {
      const head = await remoteHead(workspace, network, request.ref, deps.limits);
      if (head && head !== synced?.commitOid) {
        throw AppError.conflict(
          synced?.commitOid
            ? `${request.ref} has commits that were not imported (remote at ${shortOid(head)}, last sync at ${shortOid(synced.commitOid)}); import the repository first, then export`
            : `${request.ref} already has commits and this space was never synced with it; import the repository first, then export`,
        );
      }
      if (head) await fetchRef(workspace, network, request.ref, deps.limits);
      const now = deps.clock();
      const written = await writeCommit(workspace, {
        parent: head,
        directory: request.directory,
        files: layout.files,
        message,
        author: input.author ?? EXPORT_AUTHOR,
        now,
      });
      if (!written.changed) return { oid: head!, pushed: false };
      await pushCommit(workspace, network, written.oid, request.ref, deps.limits);
      return { oid: written.oid, pushed: true };
    });
    const prefix = request.directory ? `${request.directory}/` : "";
    const prefixed = (paths: Record<string, string>) => Object.fromEntries(Object.entries(paths).map(([path, id]) => [prefix + path, id]));
    const commit: GitCommitValue = {
      oid: outcome.oid,
      message: outcome.pushed ? message : (synced?.commitMessage ?? message),
      ref: request.ref,
      createdByService: outcome.pushed ? true : (synced?.commitByService ?? false),
    };
    await completeSync(
      em,
      target,
      operation,
      {
        commitOid: commit.oid,
        commitMessage: commit.message,
        commitByService: commit.createdByService,
        revisionId,
        pages: prefixed(layout.pages),
        files: prefixed(layout.assets),
      },
      deps.clock(),
    );
    deps.logger.info("git export finished", {
      space_id: space.id,
      url: target.url,
      ref: request.ref,
      commit: commit.oid,
      pushed: outcome.pushed,
      files: layout.files.length,
      duration_ms: Math.round(performance.now() - started),
    });
    return { commit, pushed: outcome.pushed, files: layout.files.length };
  } catch (error) {
    await failOperation(em, space.id, operation, error, deps.clock()).catch(() => undefined);
    throw error;
  }
}
