import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock } from "@imprint/runtime";
import type { Comment } from "./domain/index.js";
import type { CallerInput } from "./use-cases/shared/access.js";
import { nextSpaceCounters } from "./use-cases/shared/counters.js";

/** Every collaboration event goes to the `IMPRINT_COLLABORATION` stream, subjects `imprint.collaboration.v1.<aggregate>.<event>`. */
export const COLLABORATION_EVENT_CONTEXT = "collaboration";

export type CollaborationAggregate = "change_request" | "comment" | "comment_reply";

/**
 * Records a collaboration event in the current transaction (published by the relay after commit).
 * Every event concerns one space and carries that space's counters as of this transaction
 * (`spaceCounters`), so content keeps its space counters from the events alone.
 */
export async function recordCollaborationEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: {
    aggregate: CollaborationAggregate;
    name: string;
    organizationId: string;
    actor: CallerInput | null;
    spaceId: string;
    payload: Record<string, unknown>;
  },
): Promise<void> {
  const spaceCounters = await nextSpaceCounters(em, event.spaceId);
  recordEvent(em, {
    context: COLLABORATION_EVENT_CONTEXT,
    aggregate: event.aggregate,
    event: event.name,
    organizationId: event.organizationId,
    actor: event.actor,
    payload: { spaceId: event.spaceId, ...event.payload, spaceCounters },
    occurredAt: deps.clock(),
  });
}

/** Records `comment_reply.<name>` for a reply of `comment`; `extra` joins the ids in the payload. */
export async function recordReplyEvent(
  em: EntityManager,
  deps: { clock: Clock },
  actor: CallerInput,
  comment: Pick<Comment, "id" | "organizationId" | "spaceId" | "changeRequestId">,
  replyId: string,
  name: "created" | "updated" | "deleted",
  extra: Record<string, unknown> = {},
): Promise<void> {
  await recordCollaborationEvent(em, deps, {
    aggregate: "comment_reply",
    name,
    organizationId: comment.organizationId,
    actor,
    spaceId: comment.spaceId,
    payload: { commentId: comment.id, replyId, changeRequestId: comment.changeRequestId, ...extra },
  });
}
