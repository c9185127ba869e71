import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import type { Comment } from "../../domain/comment.js";
import { commentReopened, commentResolved, spaceEventPayload } from "../../events.js";
import type { CallerInput } from "./access.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Resolves (or reopens) a comment in the caller's transaction and records `comment.resolved` /
 * `comment.reopened`; nothing when it already is that way.
 */
export async function recordResolution(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  caller: CallerInput,
  comment: Comment,
  resolved: boolean,
): Promise<void> {
  if (!comment.setResolved(resolved, caller.userId, deps.clock)) return;
  recordEvent(em, resolved ? commentResolved : commentReopened, {
    organizationId: comment.organizationId,
    actor: caller,
    payload: await spaceEventPayload(em, comment.spaceId, { commentId: comment.id, changeRequestId: comment.changeRequestId }),
  });
}
