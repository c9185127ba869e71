import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { newContentId } from "../domain/editing/draft-editor.js";
import { contentIdFrom } from "../domain/editing/page-input.js";
import { validateReusableContent } from "../domain/editing/reusable-content.js";
import type { ReusableRecord } from "../domain/tree/model.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export interface SetReusableContentInput {
  caller: CallerInput | undefined;
  draftId: string;
  /** Empty: create one. */
  reusableContentId: string;
  title: string;
  markdown: string;
  delete: boolean;
}

/** Creates or replaces a reusable content of the draft, or deletes it (answering undefined). */
export async function setReusableContent(em: EntityManager, input: SetReusableContentInput, deps: RevisionDeps): Promise<ReusableRecord | undefined> {
  const id = input.reusableContentId === "" ? null : contentIdFrom(input.reusableContentId, "reusable_content_id");
  if (input.delete) {
    if (id === null) throw AppError.invalidArgument("reusable_content_id: is required to delete");
    await editDraft(em, deps, input, (editor) => editor.deleteReusable(id));
    return undefined;
  }
  const { title, markdown } = validateReusableContent(input);
  return editDraft(em, deps, input, async (editor) => {
    if (id !== null && !(await editor.reusable(id))) throw new AppError("not_found", "reusable_content_id: reusable content not found in this draft");
    return editor.putReusable({ reusableContentId: id ?? newContentId(), title, markdown });
  });
}
