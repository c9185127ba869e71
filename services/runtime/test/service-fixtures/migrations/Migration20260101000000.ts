import { Migration } from "@mikro-orm/migrations";

// Hand-written migration of the service test: the runtime's outbox tables (as every service's
// first migration creates them) plus the test service's own table.
export class Migration20260101000000 extends Migration {
  async up(): Promise<void> {
    this.addSql(
      `create table "outbox_events" ("id" uuid not null, "sequence" bigserial, "subject" varchar(255) not null, "type" varchar(128) not null, "envelope" jsonb not null, "trace_headers" jsonb null, "created_at" timestamptz not null, "published_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_sequence_unique" unique ("sequence");`);
    this.addSql(`create index "outbox_events_published_at_index" on "outbox_events" ("published_at");`);
    this.addSql(
      `create table "processed_events" ("consumer" varchar(128) not null, "event_id" uuid not null, "processed_at" timestamptz not null, primary key ("consumer", "event_id"));`,
    );
    this.addSql(`create table "notes" ("id" uuid not null, "text" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);
  }
}
