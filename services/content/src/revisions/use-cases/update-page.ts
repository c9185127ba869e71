import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { plainField, type PagePatch } from "../domain/editing/draft-editor.js";
import type { EditedPage } from "./create-page.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** Changes the given fields of a page of the caller's draft. */
export async function updatePage(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; patch: PagePatch },
  deps: RevisionDeps,
): Promise<EditedPage> {
  return editDraft(em, deps, input, async (editor) => {
    const page = await editor.updatePage(input.patch, plainField);
    return { page, path: await editor.pathOf(page) };
  });
}
