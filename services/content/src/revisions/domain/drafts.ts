import { AppError } from "@imprint/runtime";
import type { RevisionHeader } from "./tree/caches.js";

/** Characters a commit message may hold. */
export const COMMIT_MESSAGE_MAX = 1000;

/** The message of a commit, or invalid_argument past COMMIT_MESSAGE_MAX characters. */
export function validateCommitMessage(message: string): string {
  if (message.length > COMMIT_MESSAGE_MAX) throw AppError.invalidArgument(`message: must be at most ${COMMIT_MESSAGE_MAX} characters`);
  return message;
}

/**
 * The draft a discard removes: null when it is gone or someone else's (a discard of nothing
 * succeeds); a committed revision cannot be discarded (failed_precondition).
 */
export function discardableDraft(draft: RevisionHeader | undefined, userId: string): RevisionHeader | null {
  if (!draft || draft.createdBy !== userId) return null;
  if (draft.status !== "draft") throw new AppError("failed_precondition", "draft_id: a committed revision cannot be discarded");
  return draft;
}

/**
 * A draft is its author's alone and open until committed: someone else's draft, or no draft,
 * answers not_found; a committed one failed_precondition.
 */
export function requireOwnOpenDraft(draft: RevisionHeader | undefined, userId: string): RevisionHeader {
  if (!draft || draft.createdBy !== userId) throw AppError.notFound("Draft");
  if (draft.status !== "draft") throw new AppError("failed_precondition", "draft_id: this draft was already committed");
  return draft;
}
