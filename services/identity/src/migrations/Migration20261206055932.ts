import { Migration } from "@mikro-orm/migrations";

export class Migration20261206055932 extends Migration {
  override name = "Migration20261206055932";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_events" ("id" uuid not null, "organization_id" uuid not null, "occurred_at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(128) not null, "actor_label" varchar(255) null, "source" varchar(16) not null, "target_type" varchar(64) not null, "target_id" varchar(128) not null, "target_label" varchar(255) null, "event_type" varchar(64) not null, "payload" jsonb not null, "recorded_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "audit_events_organization_occurred_at_index" on "audit_events" ("organization_id", "occurred_at", "id");`);
    this.addSql(`create index "audit_events_organization_action_index" on "audit_events" ("organization_id", "action", "occurred_at");`);
    this.addSql(`create index "audit_events_organization_actor_index" on "audit_events" ("organization_id", "actor_id", "occurred_at");`);
    this.addSql(`create index "audit_events_organization_target_index" on "audit_events" ("organization_id", "target_id", "occurred_at");`);
    this.addSql(`create index "audit_events_occurred_at_index" on "audit_events" ("occurred_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_events" cascade;`);
  }
}
