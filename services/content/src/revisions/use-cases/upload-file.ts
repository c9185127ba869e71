import { createHash } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, sql } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { newContentId } from "../domain/editing/draft-editor.js";
import { contentIdFrom } from "../domain/editing/page-input.js";
import { validateFile } from "../domain/files/file-rules.js";
import { imageDimensions } from "../domain/files/image-dimensions.js";
import type { FileRecord } from "../domain/tree/model.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export interface UploadFileInput {
  caller: CallerInput | undefined;
  draftId: string;
  /** Empty: a new file. */
  fileId: string;
  name: string;
  contentType: string;
  content: Uint8Array;
}

function validate(input: UploadFileInput): { name: string; contentType: string; fileId: string | null } {
  const { name, contentType } = validateFile({ name: input.name, contentType: input.contentType, size: input.content.byteLength });
  return { name, contentType, fileId: input.fileId === "" ? null : contentIdFrom(input.fileId, "file_id") };
}

/**
 * Stores the bytes in the blob store (content-addressed: the same bytes are kept once) and adds
 * the file to the draft, or replaces a file's content and name. Image dimensions are read from
 * the bytes.
 */
export async function uploadFile(em: EntityManager, input: UploadFileInput, deps: RevisionDeps): Promise<FileRecord> {
  const { name, contentType, fileId } = validate(input);
  const dimensions = imageDimensions(input.content);
  return editDraft(em, deps, input, async (editor, _draft, tx) => {
    if (fileId !== null && !(await editor.file(fileId))) throw new AppError("not_found", "file_id: file not found in this draft");
    const { key, size } = await storeBlob(tx, deps, input.content);
    return editor.putFile({
      fileId: fileId ?? newContentId(),
      name,
      contentType,
      size,
      width: dimensions?.width ?? null,
      height: dimensions?.height ?? null,
      blobKey: key,
      git: null,
    });
  });
}

/**
 * Writes the blob under a transaction-scoped advisory lock on its key: the purge takes the same
 * lock before deleting an unreferenced blob, so a blob is never deleted between being written
 * here and its row being committed.
 */
export async function storeBlob(tx: EntityManager, deps: Pick<RevisionDeps, "blobStore">, bytes: Uint8Array): Promise<{ key: string; size: number }> {
  const key = createHash("sha256").update(bytes).digest("hex");
  await executeStatement(tx, sql`select pg_advisory_xact_lock(hashtextextended(${`blob:${key}`}, 0))`);
  return deps.blobStore.put(bytes);
}
