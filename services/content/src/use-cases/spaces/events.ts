import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";

export const CONTENT_EVENT_CONTEXT = "content";

/** Records a space or collection event in the current transaction (published by the relay after commit). */
export function recordContentEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: {
    aggregate: "space" | "collection";
    name: string;
    organizationId: string;
    actor: CallerInput | null;
    payload: Record<string, unknown>;
  },
): void {
  recordEvent(em, {
    context: CONTENT_EVENT_CONTEXT,
    aggregate: event.aggregate,
    event: event.name,
    organizationId: event.organizationId,
    actor: event.actor ? { userId: event.actor.userId, ...(event.actor.tokenId ? { tokenId: event.actor.tokenId } : {}) } : null,
    payload: event.payload,
    occurredAt: deps.clock(),
  });
}
