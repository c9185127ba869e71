import { OutboxEvent, ProcessedEvent } from "../events/entities.js";
import { JobLease } from "../jobs/entities.js";
import { IdempotentCall } from "./idempotent-calls.js";

/**
 * The runtime's entities, which every service's database holds besides its own (their tables'
 * SQL: runtime-tables.ts): the one list of them. The ORM of every service registers them, and so
 * must anything that diffs a service's schema (the create-migration scripts), or it would see
 * their tables as dropped. A table the runtime adds comes with its entity here.
 */
export const RUNTIME_ENTITIES = [OutboxEvent, ProcessedEvent, JobLease, IdempotentCall] as const;
