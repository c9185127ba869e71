import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { FileRecord } from "../domain/tree/model.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

/** One file of a revision. */
export async function getFile(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; fileId: string },
  deps: RevisionDeps,
): Promise<FileRecord> {
  const { view } = await openContent(em, deps, input);
  const file = /^[A-Za-z0-9_-]{1,64}$/.test(input.fileId) ? await view.file(input.fileId) : undefined;
  if (!file) throw AppError.notFound("File");
  return file;
}
