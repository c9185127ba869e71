import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, safeFetch, SafeFetchError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { CONTENT_CHANGE_LIMITS, changeField, validateContentChanges, type ContentChange } from "../domain/authoring/changes.js";
import { asChangeError, planContentChanges, type AffectedPage } from "../domain/authoring/plan.js";
import { mergeBaseOf, requireBranch, requireUnmerged } from "../store/branch-rows.js";
import { ContentView } from "../domain/tree/content-view.js";
import type { FileRecord } from "../domain/tree/model.js";
import { findRevision } from "../store/revision-rows.js";
import { StoreSession } from "../store/session.js";
import { applyPageOperations } from "./apply-page-operations.js";
import { commitDraft } from "./commit-draft.js";
import { discardDraft } from "./discard-draft.js";
import { openDraft } from "./open-draft.js";
import { isRevisionId } from "./shared/drafts.js";
import { openContent } from "./shared/open-content.js";
import { uploadFile } from "./upload-file.js";
import type { EditingDeps } from "../../deps.js";

export interface UpdateBranchContentInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** The change request's id or number. */
  changeRequestId: string;
  changes: ContentChange[];
}

export interface BranchContentUpdate {
  revisionId: string;
  pages: AffectedPage[];
  insertedFiles: FileRecord[];
}

/** Commits are retried this often when another commit moved the branch's head meanwhile (as the import does). */
const COMMIT_ATTEMPTS = 4;

interface FileBytes {
  ref: string;
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** Every file of the batch's insert_files changes, fetched (through the fetch guard) before any draft exists. */
async function fetchFiles(changes: ContentChange[], deps: EditingDeps): Promise<FileBytes[]> {
  const files: FileBytes[] = [];
  for (const [index, change] of changes.entries()) {
    if (change.kind !== "insert_files") continue;
    for (const [fileIndex, file] of change.files.entries()) {
      if (file.source.kind === "bytes") {
        files.push({ ref: file.ref, name: file.name, contentType: file.contentType, bytes: file.source.bytes });
        continue;
      }
      try {
        const fetched = await safeFetch(file.source.url, deps.fetchPolicy, { accept: () => true, maxBodyBytes: CONTENT_CHANGE_LIMITS.fetchedFileBytes });
        files.push({
          ref: file.ref,
          name: file.name,
          contentType: file.contentType.trim() || fetched.mediaType || "application/octet-stream",
          bytes: fetched.body,
        });
      } catch (error) {
        if (error instanceof SafeFetchError)
          throw AppError.invalidArgument(`${changeField(index)(`files[${fileIndex}].url`)}: could not be fetched (${error.reason})`);
        throw error;
      }
    }
  }
  return files;
}

/** Where each uploaded file's errors point (`changes[2].files[1]`). */
function fileFields(changes: ContentChange[]): string[] {
  const fields: string[] = [];
  changes.forEach((change, index) => {
    if (change.kind === "insert_files") change.files.forEach((_, fileIndex) => fields.push(changeField(index)(`files[${fileIndex}]`)));
  });
  return fields;
}

/**
 * One attempt: a draft on the branch's head, the files, the planned page operations in one batch,
 * and a commit that moves the branch's head only if it is still the draft's parent. The draft is
 * discarded on any failure.
 */
async function writeBatch(
  em: EntityManager,
  deps: EditingDeps,
  input: { caller: CallerInput; spaceId: string; changeRequestId: string; changes: ContentChange[]; files: FileBytes[] },
): Promise<BranchContentUpdate> {
  const { caller, spaceId, changeRequestId } = input;
  const draft = await openDraft(em, { caller, spaceId, parentRevisionId: "", changeRequestId }, deps);
  try {
    const fields = fileFields(input.changes);
    const insertedFiles: FileRecord[] = [];
    const fileIdByRef = new Map<string, string>();
    for (const [index, file] of input.files.entries()) {
      let record: FileRecord;
      try {
        record = await uploadFile(em, { caller, draftId: draft.id, fileId: "", name: file.name, contentType: file.contentType, content: file.bytes }, deps);
      } catch (error) {
        if (error instanceof AppError && error.code === "invalid_argument") throw AppError.invalidArgument(`${fields[index]}.${error.message}`);
        throw error;
      }
      insertedFiles.push(record);
      if (file.ref !== "") fileIdByRef.set(file.ref, record.fileId);
    }

    const { view } = await openContent(em, deps, { caller, ref: { spaceId, changeRequestId: "", revisionId: draft.id } });
    const branchRecord = await requireBranch(em, spaceId, changeRequestId);
    const revertTarget = async (revisionId: string | null, field: string): Promise<ContentView> => {
      const id = revisionId ?? mergeBaseOf(branchRecord);
      const revision = isRevisionId(id) ? await findRevision(em, deps.caches, id) : undefined;
      if (!revision || revision.spaceId !== draft.spaceId || revision.status !== "committed")
        throw AppError.invalidArgument(`${field}: no revision with this id in the space`);
      return new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches);
    };
    const plan = await planContentChanges(input.changes, { view, revertTarget, fileIdByRef });
    try {
      await applyPageOperations(em, { caller, draftId: draft.id, operations: plan.operations }, deps);
    } catch (error) {
      throw asChangeError(error);
    }
    const commit = await commitDraft(em, { caller, draftId: draft.id, message: "Content changes", moveHead: true, expectedHeadRevisionId: "" }, deps);
    return { revisionId: commit.revisionId, pages: plan.affected, insertedFiles };
  } catch (error) {
    await discardDraft(em, { caller, draftId: draft.id }, deps).catch((discardError: unknown) =>
      deps.logger.warn("content changes: could not discard the draft", { draftId: draft.id, err: discardError }),
    );
    throw error;
  }
}

/**
 * Applies a batch of content changes (GitBook's updateChangeRequestContent) to a change request's
 * branch as one new revision, or nothing. Needs edit rights and a change request that is not
 * merged. Since the changes name pages by id rather than a base revision, a commit that loses the
 * race for the branch's head is planned and applied again on the new head, a few times, before
 * `conflict`; nothing is ever committed over another commit.
 */
export async function updateBranchContent(em: EntityManager, input: UpdateBranchContentInput, deps: EditingDeps): Promise<BranchContentUpdate> {
  const caller = requireCaller(input.caller);
  validateContentChanges(input.changes);
  const { space } = await requireSpaceAccess(em, deps, { caller, spaceId: input.spaceId, need: "edit" });
  const branch = await requireBranch(em, space.id, input.changeRequestId);
  requireUnmerged(branch);
  const files = await fetchFiles(input.changes, deps);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeBatch(em, deps, { caller, spaceId: space.id, changeRequestId: branch.id, changes: input.changes, files });
    } catch (error) {
      if (error instanceof AppError && error.code === "conflict" && attempt < COMMIT_ATTEMPTS) continue;
      throw error;
    }
  }
}
