import { CreatePageInput, EditingServiceService, type UpdatePageInput } from "@imprint/proto/content/v1/editing";
import type { PromiseClient } from "@imprint/runtime";
import { createRevision, pageUpdate, testClient } from "@imprint/runtime/testing";
import { startStack, type TestStack } from "./stack.js";

/**
 * Writing content the way internal teams do: through the content service's editing API (drafts
 * committed with move_head), on a space's main content or on a change request's branch.
 */
export type EditingClient = PromiseClient<typeof EditingServiceService>;

export function editingClient(stack: TestStack): EditingClient {
  return testClient(EditingServiceService, stack.contentAddress);
}

export interface EditTarget {
  /** Who edits. */
  userId: string;
  spaceId: string;
  /** The change request (id or number) whose branch is edited; absent for the space's main content. */
  changeRequestId?: string;
}

/** The operations a test needs on one open draft. */
export interface DraftEdits {
  createPage(fields: Partial<CreatePageInput>): Promise<unknown>;
  updatePage(fields: Partial<UpdatePageInput> & { pageId: string }): Promise<unknown>;
}

export interface DraftCaller {
  userId: string;
  tokenId: string;
}

/** Opens a draft on the target's head, runs `work` on it, commits it as the new head; returns the revision id. */
export async function commitDraftWork(
  editing: EditingClient,
  target: EditTarget,
  work: (draftId: string, caller: DraftCaller) => Promise<unknown>,
): Promise<string> {
  const caller = { userId: target.userId, tokenId: "" };
  return createRevision({ editing }, caller, target, (draftId) => work(draftId, caller), "test edit");
}

/** commitDraftWork with the page operations most tests need. */
export function commitEdits(editing: EditingClient, target: EditTarget, work: (draft: DraftEdits) => Promise<unknown>): Promise<string> {
  return commitDraftWork(editing, target, (draftId, caller) =>
    work({
      createPage: (fields) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) }),
      updatePage: (fields) => editing.updatePage({ caller, draftId, page: pageUpdate(fields) }),
    }),
  );
}

/** A file's stack with an editing client on it, for e2e files that write content. */
export async function startEditingStack(options: Parameters<typeof startStack>[0] = {}): Promise<{ stack: TestStack; editing: EditingClient }> {
  const stack = await startStack(options);
  return { stack, editing: editingClient(stack) };
}

/** Stops what startEditingStack started (either may be missing when starting failed). */
export async function stopEditingStack(stack: TestStack | undefined, editing: EditingClient | undefined): Promise<void> {
  editing?.close();
  await stack?.stop();
}
