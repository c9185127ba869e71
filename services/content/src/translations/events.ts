import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent, type Clock } from "@imprint/runtime";
import type { CallerInput } from "../access/index.js";
import { CONTENT_EVENT_CONTEXT } from "../use-cases/spaces/events.js";

/** Records a `translation_settings.*` event in the current transaction (published by the relay after commit). */
export function recordTranslationSettingsEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: { name: "created" | "updated" | "deleted"; organizationId: string; actor: CallerInput; payload: Record<string, unknown> },
): void {
  recordEvent(em, {
    context: CONTENT_EVENT_CONTEXT,
    aggregate: "translation_settings",
    event: event.name,
    organizationId: event.organizationId,
    actor: { userId: event.actor.userId, ...(event.actor.tokenId ? { tokenId: event.actor.tokenId } : {}) },
    payload: event.payload,
    occurredAt: deps.clock(),
  });
}
