/**
 * The tables the runtime keeps in every service's database (outbox, processed events, job
 * leases, keyed calls), as SQL: the one source of their schema for migrations. A new service's
 * first migration calls {@link addRuntimeTables}; a table the runtime adds later reaches existing
 * services through a migration of theirs that adds just that table, and the first migrations that
 * took every table then name the tables of their time (else a fresh database would get the new
 * table twice). The SQL matches the runtime's entities (RUNTIME_ENTITIES in runtime-entities.ts), which the services' schema-drift tests check, and the services' applied
 * first migrations, which wrote these same statements before the helper existed (their tests
 * compare the result, see testing/schema.ts).
 */
const PROCESSED_EVENTS_AGE_INDEX = `create index if not exists "processed_events_processed_at_index" on "processed_events" ("processed_at");`;

const RUNTIME_TABLES = {
  outbox_events: [
    `create table "outbox_events" ("id" uuid not null, "sequence" bigserial, "subject" varchar(255) not null, "type" varchar(128) not null, "envelope" jsonb not null, "trace_headers" jsonb null, "created_at" timestamptz not null, "published_at" timestamptz null, primary key ("id"));`,
    `alter table "outbox_events" add constraint "outbox_events_sequence_unique" unique ("sequence");`,
    `create index "outbox_events_published_at_index" on "outbox_events" ("published_at");`,
  ],
  processed_events: [
    `create table "processed_events" ("consumer" varchar(128) not null, "event_id" uuid not null, "processed_at" timestamptz not null, primary key ("consumer", "event_id"));`,
    // Added later (the pruning job's scan by age), hence `if not exists`: services whose first
    // migration predates it add it in a migration of theirs (addProcessedEventsAgeIndex).
    PROCESSED_EVENTS_AGE_INDEX,
  ],
  // Added after the first services: they create it in a migration of their own.
  job_leases: [
    `create table "job_leases" ("name" varchar(128) not null, "holder" varchar(255) not null, "expires_at" timestamptz not null, primary key ("name"));`,
  ],
  // Keyed calls (gRPC writes sent with an idempotency key, see grpc/keyed-calls.ts); added later too.
  idempotent_calls: [
    `create table "idempotent_calls" ("key" varchar(255) not null, "method" varchar(255) not null, "claimed_at" timestamptz not null, "answer_due_by" timestamptz not null, "response" bytea null, primary key ("key"));`,
    `create index "idempotent_calls_claimed_at_index" on "idempotent_calls" ("claimed_at");`,
  ],
} as const satisfies Record<string, readonly string[]>;

export type RuntimeTable = keyof typeof RUNTIME_TABLES;

/** Every runtime table, in creation order. */
export const RUNTIME_TABLE_NAMES = Object.keys(RUNTIME_TABLES) as RuntimeTable[];

/** The statements creating `tables` (default: all of them). */
export function runtimeTablesSql(tables: readonly RuntimeTable[] = RUNTIME_TABLE_NAMES): string[] {
  return tables.flatMap((table) => RUNTIME_TABLES[table]);
}

/**
 * Adds the runtime's tables to a migration: `addRuntimeTables(this)` in a new service's first
 * migration, `addRuntimeTables(this, ["<table>"])` when the runtime gains a table.
 */
export function addRuntimeTables(migration: { addSql(sql: string): void }, tables: readonly RuntimeTable[] = RUNTIME_TABLE_NAMES): void {
  for (const statement of runtimeTablesSql(tables)) migration.addSql(statement);
}

/** The processed-events age index, for a service whose first migration created the table without it. */
export function addProcessedEventsAgeIndex(migration: { addSql(sql: string): void }): void {
  migration.addSql(PROCESSED_EVENTS_AGE_INDEX);
}
