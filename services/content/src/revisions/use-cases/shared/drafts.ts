import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, isId, sql, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../../access/index.js";
import { requireSpaceAccess, type SpaceAccess } from "../../../spaces/index.js";
import { requireOwnOpenDraft } from "../../domain/drafts.js";
import { DraftEditor } from "../../domain/editing/draft-editor.js";
import type { RevisionHeader } from "../../domain/tree/caches.js";
import { lockRevision, updateDraftContent } from "../../store/revision-rows.js";
import { StoreSession } from "../../store/session.js";
import { revisionCreated } from "../../../events.js";
import type { RevisionDeps } from "../../../deps.js";

/** Revision ids are uuids (the runtime's id check). */
export function isRevisionId(value: string): boolean {
  return isId(value);
}

/**
 * The caller's open draft, locked for the rest of the transaction, with edit access to its space
 * checked again (rights can change while a draft is open). Someone else's draft, or no draft,
 * answers not_found; a committed one failed_precondition.
 */
export async function lockOwnDraft(
  tx: EntityManager,
  deps: RevisionDeps,
  input: { caller: CallerInput | undefined; draftId: string },
): Promise<{ draft: RevisionHeader; access: SpaceAccess; caller: CallerInput }> {
  const caller = requireCaller(input.caller);
  if (!isRevisionId(input.draftId)) throw AppError.notFound("Draft");
  const draft = requireOwnOpenDraft(await lockRevision(tx, input.draftId), caller.userId);
  const access = await requireSpaceAccess(tx, deps, { caller, spaceId: draft.spaceId, need: "edit" });
  return { draft, access, caller };
}

/**
 * Takes the store's advisory lock for the rest of the transaction before writing rows into the
 * store: shared with other writers, exclusive with the purge's sweep (purge-space-content.ts), so
 * the sweep never deletes a row a new tree is being built on.
 */
export async function shareStoreLock(tx: EntityManager, storeId: string): Promise<void> {
  await executeStatement(tx, sql`select pg_advisory_xact_lock_shared(hashtextextended(${`store:${storeId}`}, 0))`);
}

/**
 * Runs `work` on the caller's draft in one transaction, then writes what it staged: the new tree
 * (one path copy for all the changes) and the draft's new root.
 */
export async function editDraft<T>(
  em: EntityManager,
  deps: RevisionDeps,
  input: { caller: CallerInput | undefined; draftId: string },
  work: (editor: DraftEditor, draft: RevisionHeader, tx: EntityManager) => Promise<T>,
  options: { variables?: Record<string, string> } = {},
): Promise<T> {
  return em.transactional(async (tx) => {
    const { draft } = await lockOwnDraft(tx, deps, input);
    await shareStoreLock(tx, draft.storeId);
    const editor = new DraftEditor(new StoreSession(tx, draft.storeId, deps.caches), draft.root, deps.clock());
    const result = await work(editor, draft, tx);
    if (editor.changed || options.variables) {
      const { root } = editor.changed ? await editor.flush() : { root: draft.root };
      await updateDraftContent(tx, draft.id, { root, variables: options.variables ?? draft.variables });
    }
    return result;
  });
}

/**
 * Records `revision.created` in the current transaction. A revision made on a change request's
 * branch carries `changeRequestId` (its `movedHead` is about the branch's head); the space's own
 * revisions have none.
 */
export function recordRevisionCreated(
  em: EntityManager,
  event: {
    organizationId: string;
    actor: CallerInput | null;
    spaceId: string;
    revisionId: string;
    parents: string[];
    movedHead: boolean;
    changeRequestId?: string | null;
  },
): void {
  recordEvent(em, revisionCreated, {
    organizationId: event.organizationId,
    actor: event.actor,
    payload: {
      spaceId: event.spaceId,
      revisionId: event.revisionId,
      parents: event.parents,
      movedHead: event.movedHead,
      ...(event.changeRequestId ? { changeRequestId: event.changeRequestId } : {}),
    },
  });
}
