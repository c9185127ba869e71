import type { EntityManager } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
import type { CallerInput } from "../access/index.js";
import { recordContentEvent } from "../events.js";

/** Records a `translation_settings.*` event in the current transaction (published by the relay after commit). */
export function recordTranslationSettingsEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: { name: "created" | "updated" | "deleted"; organizationId: string; actor: CallerInput; payload: Record<string, unknown> },
): void {
  recordContentEvent(em, deps, { aggregate: "translation_settings", ...event });
}
