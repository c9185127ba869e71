import type { Clock, SafeFetchPolicy, SecretBox, UnitOfWork } from "@imprint/runtime";
import type { LockoutPolicy } from "./domain/password.js";
import type { SessionPolicy } from "./domain/session.js";

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
  /** When failed password sign-ins lock an account (PASSWORD_LOCKOUT_FAILURES, PASSWORD_LOCKOUT_MS). */
  lockout: LockoutPolicy;
  /** When sessions end (SESSION_IDLE_MS, SESSION_MAX_MS). */
  sessions: SessionPolicy;
  /** How OpenID providers are reached (discovery, token endpoint, keys): the private-address rule unless IMPRINT_ALLOW_PRIVATE_FETCH. */
  oidcFetch: SafeFetchPolicy;
  /** Whether an OpenID issuer may be an http URL (IMPRINT_ALLOW_PRIVATE_FETCH). */
  allowHttpIssuers: boolean;
  /** Seals OpenID providers' client secrets at rest (IDENTITY_SECRETS_KEY, or the key kept in IMPRINT_DATA_DIR). */
  secrets: SecretBox;
}

export type { CallerInput } from "@imprint/runtime";
