/** Everything a bounded-context service needs: the core plus database, events, the service bootstrap and the SSRF-guarded outbound HTTP (safe-fetch). */
export * from "./core.js";
export * from "./pagination.js";
export * from "./db/orm.js";
export * from "./db/runtime-tables.js";
export * from "./db/runtime-entities.js";
export * from "./db/unit-of-work.js";
export * from "./db/idempotent-calls.js";
export * from "./db/sql.js";
export * from "./db/find-owned.js";
export * from "./jobs/entities.js";
export * from "./jobs/job-runner.js";
export * from "./jobs/work-queue.js";
export * from "./events/prune-processed-events.js";
export * from "./events/entities.js";
export * from "./events/envelope.js";
// Not defineEvent nor decodePayload: a service's events are the contracts generated from its
// events.proto, and consumers read them through handleEvents or a watch, never declared again.
export {
  isEventDefinition,
  PoisonEventError,
  UndecodablePayloadError,
  type EventDefinition,
  type EventMessage,
  type EventPayload,
} from "./events/definitions.js";
export * from "./events/record-event.js";
export * from "./events/handle-events.js";
export * from "./events/nats.js";
export * from "./events/outbox-relay.js";
export * from "./events/subscribe.js";
export * from "./events/watch.js";
export * from "./events/dead-letters.js";
export * from "./service.js";
export * from "./access/memberships.js";
export * from "./access/organization-role.js";
export * from "./access/team-membership-copy.js";
export * from "./access/team-membership-entities.js";
export * from "./access/team-membership-reconciliation.js";
export * from "./safe-fetch.js";
export * from "./kept-secret.js";
export * from "./secret-box.js";
