import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceReadAccess } from "../../spaces/index.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import { findRevision } from "../store/revision-rows.js";
import { isRevisionId } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** The caller's draft (open or committed); anyone else's answers not_found. */
export async function getDraft(em: EntityManager, input: { caller: CallerInput | undefined; draftId: string }, deps: RevisionDeps): Promise<RevisionHeader> {
  const caller = requireCaller(input.caller);
  const draft = isRevisionId(input.draftId) ? await findRevision(em, deps.caches, input.draftId) : undefined;
  if (!draft || draft.createdBy !== caller.userId) throw AppError.notFound("Draft");
  await requireSpaceReadAccess(em, deps, { caller, spaceId: draft.spaceId, need: "view" });
  return draft;
}
