import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { JsonDocument } from "@imprint/document";
import type { CallerInput } from "../../access/index.js";
import { evaluateDocument } from "../domain/markdown/evaluate.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export const EMPTY_DOCUMENT_JSON = JSON.stringify({ object: "document", data: {}, nodes: [] });

/**
 * The body of one page as a JSON document, and nothing else: one lookup of the page and one of
 * its body (GetPage also walks the page's sub-pages). A page without a body answers an empty
 * document. Needs view.
 */
export async function getPageDocument(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; pageId: string; evaluated: boolean },
  deps: RevisionDeps,
): Promise<{ documentJson: string; revisionId: string }> {
  const { revision, view } = await openContent(em, deps, input);
  const page = await view.page(input.pageId);
  if (!page) throw AppError.notFound("Page");
  if (!page.bodyId) return { documentJson: EMPTY_DOCUMENT_JSON, revisionId: revision.id };
  const body = (await view.bodies([page.bodyId])).get(page.bodyId);
  if (!body) throw new Error(`body ${page.bodyId} is missing`);
  const documentJson = input.evaluated
    ? JSON.stringify(evaluateDocument(JSON.parse(body.document) as JsonDocument, { space: revision.variables, page: page.variables }))
    : body.document;
  return { documentJson, revisionId: revision.id };
}
