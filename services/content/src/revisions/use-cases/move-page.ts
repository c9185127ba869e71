import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { plainField, type PageMove } from "../domain/editing/draft-editor.js";
import type { EditedPage } from "./create-page.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** Moves a page of the caller's draft (with its sub-pages) under a parent, at a position. */
export async function movePage(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; move: PageMove },
  deps: RevisionDeps,
): Promise<EditedPage> {
  return editDraft(em, deps, input, async (editor) => {
    const page = await editor.movePage(input.move, plainField);
    return { page, path: await editor.pathOf(page) };
  });
}
