import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { contentIdFrom } from "../domain/editing/page-input.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** Removes a file from the caller's draft; succeeds when it is not there. Its bytes stay (other revisions use them). */
export async function deleteFile(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; fileId: string },
  deps: RevisionDeps,
): Promise<void> {
  const fileId = contentIdFrom(input.fileId, "file_id");
  await editDraft(em, deps, input, (editor) => editor.deleteFile(fileId));
}
