import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock } from "@imprint/runtime";
import type { CallerInput } from "../access/index.js";
import { CONTENT_EVENT_CONTEXT } from "../use-cases/spaces/events.js";

export type OpenApiSpecEventName = "created" | "updated" | "processed" | "deleted";

/** Records an `openapi_spec.*` event in the current transaction (published by the relay after commit). */
export function recordOpenApiSpecEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: { name: OpenApiSpecEventName; organizationId: string; actor: CallerInput | null; payload: Record<string, unknown> },
): void {
  recordEvent(em, {
    context: CONTENT_EVENT_CONTEXT,
    aggregate: "openapi_spec",
    event: event.name,
    organizationId: event.organizationId,
    actor: event.actor ? { userId: event.actor.userId, ...(event.actor.tokenId ? { tokenId: event.actor.tokenId } : {}) } : null,
    payload: event.payload,
    occurredAt: deps.clock(),
  });
}
