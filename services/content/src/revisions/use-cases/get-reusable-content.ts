import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { JsonDocument } from "@imprint/document";
import type { CallerInput } from "../../access/index.js";
import { evaluateDocument } from "../domain/markdown/evaluate.js";
import type { ReusableRecord } from "../domain/tree/model.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import { EMPTY_DOCUMENT_JSON } from "./get-page-document.js";
import type { RevisionDeps } from "../../deps.js";

/**
 * One reusable content of the content, with its body as a JSON document when asked (evaluated
 * against the revision's variables on request: a reusable content has no page variables). Needs view.
 */
export async function getReusableContent(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; reusableContentId: string; withDocument: boolean; evaluated: boolean },
  deps: RevisionDeps,
): Promise<{ reusable: ReusableRecord; documentJson?: string }> {
  const { view, revision } = await openContent(em, deps, input);
  const reusable = /^[A-Za-z0-9_-]{1,64}$/.test(input.reusableContentId) ? await view.reusable(input.reusableContentId) : undefined;
  if (!reusable) throw AppError.notFound("Reusable content");
  if (!input.withDocument) return { reusable };
  if (!reusable.bodyId) return { reusable, documentJson: EMPTY_DOCUMENT_JSON };
  const body = (await view.bodies([reusable.bodyId])).get(reusable.bodyId);
  if (!body) throw new Error(`body ${reusable.bodyId} is missing`);
  if (!input.evaluated) return { reusable, documentJson: body.document };
  return { reusable, documentJson: JSON.stringify(evaluateDocument(JSON.parse(body.document) as JsonDocument, { space: revision.variables, page: {} })) };
}
