import type { EntityManager } from "@mikro-orm/postgresql";
import type { Comment } from "../../domain/comment.js";
import { commentReopened, commentResolved, recordCollaborationEvent } from "../../events.js";
import type { CallerInput } from "./access.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Resolves (or reopens) a comment in the caller's transaction and records `comment.resolved` /
 * `comment.reopened`; nothing when it already is that way.
 */
export async function recordResolution(em: EntityManager, deps: Pick<UseCaseDeps, "clock">, caller: CallerInput, comment: Comment, resolved: boolean): Promise<void> {
  if (!comment.setResolved(resolved, caller.userId, deps.clock)) return;
  await recordCollaborationEvent(em, deps, resolved ? commentResolved : commentReopened, {
    organizationId: comment.organizationId,
    actor: caller,
    spaceId: comment.spaceId,
    payload: { commentId: comment.id, changeRequestId: comment.changeRequestId },
  });
}
