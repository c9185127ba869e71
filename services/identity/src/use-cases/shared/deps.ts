import type { Clock } from "@imprint/runtime";

/** What use cases need besides their EntityManager: time, and a nudge for the outbox relay. */
export interface UseCaseDeps {
  clock: Clock;
  /** Wakes the outbox relay after a commit that recorded events. */
  relay: { notify(): void };
}

export type { CallerInput } from "@imprint/runtime";

export const IDENTITY_CONTEXT = "identity";
