import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { isId } from "../../access/index.js";
import { verifySignedUrl } from "../../revisions/index.js";
import { Export } from "../domain/entities.js";
import type { RevisionDeps } from "../../deps.js";

export interface ExportContent {
  content: Buffer;
  contentType: string;
  name: string;
}

/**
 * The bytes behind an export's signed download URL. The signature is the authority (no caller):
 * a bad one is refused, an expired URL or an export already swept answers not_found.
 */
export async function readExportContent(
  em: EntityManager,
  input: { exportId: string; expires: number; signature: string },
  deps: Pick<RevisionDeps, "signer" | "clock" | "blobStore">,
): Promise<ExportContent> {
  const now = deps.clock();
  verifySignedUrl(deps.signer, { kind: "export", fields: [input.exportId], expires: input.expires, signature: input.signature, what: "Export" }, now);
  const row = isId(input.exportId) ? await em.findOne(Export, { id: input.exportId }) : null;
  if (!row || !row.isReadableAt(now)) throw AppError.notFound("Export");
  const content = await deps.blobStore.get(row.blobKey);
  if (!content) throw AppError.notFound("Export");
  return { content, contentType: "application/pdf", name: row.name };
}
