import type { EntityManager } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
import type { CallerInput } from "../access/index.js";
import { recordContentEvent } from "../events.js";

export type OpenApiSpecEventName = "created" | "updated" | "processed" | "deleted";

/** Records an `openapi_spec.*` event in the current transaction (published by the relay after commit). */
export function recordOpenApiSpecEvent(
  em: EntityManager,
  deps: { clock: Clock },
  event: { name: OpenApiSpecEventName; organizationId: string; actor: CallerInput | null; payload: Record<string, unknown> },
): void {
  recordContentEvent(em, deps, { aggregate: "openapi_spec", ...event });
}
