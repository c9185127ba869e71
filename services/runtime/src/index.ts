/** Everything a bounded-context service needs: the core plus database, events and the service bootstrap. */
export * from "./core.js";
export * from "./pagination.js";
export * from "./db/orm.js";
export * from "./db/runtime-tables.js";
export * from "./db/unit-of-work.js";
export * from "./jobs/entities.js";
export * from "./jobs/job-runner.js";
export * from "./events/entities.js";
export * from "./events/envelope.js";
export * from "./events/definitions.js";
export * from "./events/record-event.js";
export * from "./events/handle-events.js";
export * from "./events/nats.js";
export * from "./events/outbox-relay.js";
export * from "./events/subscribe.js";
export * from "./service.js";
export * from "./access/memberships.js";
