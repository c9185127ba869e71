import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, sql } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { discardableDraft } from "../domain/drafts.js";
import { lockRevision } from "../store/revision-rows.js";
import { isRevisionId } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/**
 * Forgets an open draft. Its rows (tree nodes, versions) stay until the space is purged: they are
 * content-addressed and may be shared. Succeeds when the draft is already gone.
 */
export async function discardDraft(em: EntityManager, input: { caller: CallerInput | undefined; draftId: string }, _deps: RevisionDeps): Promise<void> {
  const caller = requireCaller(input.caller);
  if (!isRevisionId(input.draftId)) return;
  await em.transactional(async (tx) => {
    const draft = discardableDraft(await lockRevision(tx, input.draftId), caller.userId);
    if (!draft) return;
    await executeStatement(tx, sql`delete from revisions where id = ${draft.id} and status = 'draft'`);
  });
}
