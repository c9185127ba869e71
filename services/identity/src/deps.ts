import type { Clock, UnitOfWork } from "@imprint/runtime";

/**
 * What identity's use cases receive besides their EntityManager, built once per service in
 * service.ts. A leaf: types only, so use cases, domain and transports can all import it.
 */
export interface UseCaseDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
  /** How many days an audit entry is kept (AUDIT_RETENTION_DAYS). */
  auditRetentionDays: number;
}

export type { CallerInput } from "@imprint/runtime";
