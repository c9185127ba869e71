import type { Clock, UnitOfWork } from "@imprint/runtime";

/** What use cases need besides their EntityManager: time, and their transactions. */
export interface UseCaseDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
}

export type { CallerInput } from "@imprint/runtime";

export const IDENTITY_CONTEXT = "identity";
