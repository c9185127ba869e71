import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { plainField, type NewPage } from "../domain/editing/draft-editor.js";
import type { PageRecord } from "../domain/tree/model.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export interface EditedPage {
  page: PageRecord;
  path: string;
}

/** Adds a page to the caller's draft. */
export async function createPage(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; page: NewPage },
  deps: RevisionDeps,
): Promise<EditedPage> {
  return editDraft(em, deps, input, async (editor) => {
    const page = await editor.createPage(input.page, plainField);
    return { page, path: await editor.pathOf(page) };
  });
}
