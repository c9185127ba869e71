import type { EntityManager } from "@mikro-orm/postgresql";
import { recordEvent } from "@imprint/runtime";
import { IDENTITY_CONTEXT, type CallerInput, type UseCaseDeps } from "./deps.js";

export type IdentityAggregate = "organization" | "user" | "member" | "token" | "invite";

/** Records an identity event in the current transaction (published by the relay after commit). */
export function recordIdentityEvent(
  em: EntityManager,
  deps: UseCaseDeps,
  event: {
    aggregate: IdentityAggregate;
    name: string;
    organizationId: string | null;
    actor: CallerInput | null;
    payload: Record<string, unknown>;
  },
): void {
  recordEvent(em, {
    context: IDENTITY_CONTEXT,
    aggregate: event.aggregate,
    event: event.name,
    organizationId: event.organizationId,
    actor: event.actor,
    payload: event.payload,
    occurredAt: deps.clock(),
  });
}
