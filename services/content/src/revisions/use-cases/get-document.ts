import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { openContent } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

/** A document id: the SHA-256 of its markdown, in hex. */
const DOCUMENT_ID = /^[0-9a-f]{64}$/;

/**
 * A document of the space by its id (a page's or a reusable content's `document`), from any
 * revision: bodies are content-addressed in the space's store and never change, so the id alone
 * names one. Reading it needs view on the space, as reading the revision that shows it does (an
 * id is the hash of its text: knowing one is knowing the text). Unknown ids answer not_found.
 */
export async function getDocument(
  em: EntityManager,
  input: { caller: CallerInput | undefined; spaceId: string; documentId: string },
  deps: RevisionDeps,
): Promise<{ documentJson: string }> {
  const { view } = await openContent(em, deps, { caller: input.caller, ref: { spaceId: input.spaceId, changeRequestId: "", revisionId: "" } });
  const body = DOCUMENT_ID.test(input.documentId) ? (await view.bodies([input.documentId])).get(input.documentId) : undefined;
  if (!body) throw AppError.notFound("Document");
  return { documentJson: body.document };
}
