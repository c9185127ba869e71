import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { PageOperation } from "../domain/editing/draft-editor.js";
import type { EditedPage } from "./create-page.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

export type { PageOperation };

export const MAX_OPERATIONS = 20_000;

export type OperationResult = EditedPage | { deletedPageId: string; deletedPages: number };

/**
 * Applies page operations in order in one transaction, staged together: the tree is written once
 * for the whole batch (seeding and import create thousands of pages this way). Any failure aborts
 * the batch; its message names the operation.
 */
export async function applyPageOperations(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; operations: PageOperation[] },
  deps: RevisionDeps,
): Promise<OperationResult[]> {
  if (input.operations.length > MAX_OPERATIONS) throw AppError.invalidArgument(`operations: at most ${MAX_OPERATIONS} per call`);
  return editDraft(em, deps, input, async (editor) => {
    const edited: (EditedPage["page"] | { deletedPageId: string; deletedPages: number })[] = [];
    for (const [index, operation] of input.operations.entries()) {
      const field = operation.field ?? ((name: string) => `operations[${index}].${operation.kind}.${name}`);
      switch (operation.kind) {
        case "create":
          edited.push(await editor.createPage(operation.page, field));
          break;
        case "update":
          edited.push(await editor.updatePage(operation.patch, field));
          break;
        case "move":
          edited.push(await editor.movePage(operation.move, field));
          break;
        case "delete":
          edited.push({ deletedPageId: operation.pageId, deletedPages: await editor.deletePage(operation.pageId, field) });
          break;
      }
    }
    // Paths once every operation is applied (a later move changes an earlier page's path).
    const results: OperationResult[] = [];
    for (const item of edited) {
      if ("deletedPageId" in item) {
        results.push(item);
        continue;
      }
      const current = (await editor.page(item.pageId)) ?? item;
      results.push({ page: current, path: (await editor.page(item.pageId)) ? await editor.pathOf(current) : current.slug });
    }
    return results;
  });
}
