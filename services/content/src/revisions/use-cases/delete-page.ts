import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { plainField } from "../domain/editing/draft-editor.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** Removes a page and its sub-pages from the caller's draft; answers how many pages went. */
export async function deletePage(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; pageId: string },
  deps: RevisionDeps,
): Promise<number> {
  return editDraft(em, deps, input, (editor) => editor.deletePage(input.pageId, plainField));
}
