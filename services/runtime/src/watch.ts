/**
 * Following events without a database (the reader's caches): the NATS connection and a watch on
 * some contexts' subjects, without MikroORM.
 */
export { connectNats, connectNatsInBackground, NatsLink, type NatsConnection } from "./events/nats.js";
export { parseEnvelope, type EventEnvelope } from "./events/envelope.js";
export * from "./events/watch.js";
export type { DecodedEvent } from "./events/handle-events.js";
export type { EventDefinition } from "./events/definitions.js";
export { followEvents, type EventFollower } from "./access/follow-events.js";
export { NatsWindowCounts, RATE_LIMIT_BUCKET } from "./rate-limit/nats-window-counts.js";
