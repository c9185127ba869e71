import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock } from "@imprint/runtime";
import type { CallerInput } from "./access/index.js";

/** Every content event goes to the `IMPRINT_CONTENT` stream, subjects `imprint.content.v1.<aggregate>.<event>`. */
export const CONTENT_EVENT_CONTEXT = "content";

export type ContentAggregate = "space" | "collection" | "revision" | "branch" | "openapi_spec" | "translation_settings";

/** Records a content event in the current transaction (published by the relay after commit). */
export function recordContentEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: {
    aggregate: ContentAggregate;
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
    actor: event.actor,
    payload: event.payload,
    occurredAt: deps.clock(),
  });
}
