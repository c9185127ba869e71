import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql } from "@imprint/runtime";
import { verifyDownload } from "../domain/files/signed-url.js";
import type { RevisionDeps } from "../../deps.js";

export interface FileContent {
  content: Buffer;
  contentType: string;
  name: string;
}

/**
 * The bytes behind a signed download URL. The signature is the authority (no caller): it names
 * the file and the stored version it was issued for, so the bytes served are the ones the reader
 * saw, even if the file changed since.
 */
export async function readFileContent(
  em: EntityManager,
  input: { fileId: string; version: string; expires: number; signature: string },
  deps: Pick<RevisionDeps, "signer" | "clock" | "blobStore">,
): Promise<FileContent> {
  verifyDownload(deps.signer, input, deps.clock());
  const [row] = await queryRows<{ name: string; content_type: string; blob_key: string }>(
    em,
    sql`select name, content_type, blob_key from file_versions where id = ${input.version} and file_id = ${input.fileId} limit 1`,
  );
  if (!row) throw AppError.notFound("File");
  const content = await deps.blobStore.get(row.blob_key);
  if (!content) throw AppError.notFound("File");
  return { content, contentType: row.content_type, name: row.name };
}
