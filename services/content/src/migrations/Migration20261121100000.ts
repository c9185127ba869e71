import { Migration } from "@mikro-orm/migrations";

/** Collections, spaces, and the runtime's outbox and processed-event tables. */
export class Migration20261121100000 extends Migration {
  override name = "Migration20261121100000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "outbox_events" ("id" uuid not null, "sequence" bigserial, "subject" varchar(255) not null, "type" varchar(128) not null, "envelope" jsonb not null, "trace_headers" jsonb null, "created_at" timestamptz not null, "published_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_sequence_unique" unique ("sequence");`);
    this.addSql(`create index "outbox_events_published_at_index" on "outbox_events" ("published_at");`);

    this.addSql(
      `create table "processed_events" ("consumer" varchar(128) not null, "event_id" uuid not null, "processed_at" timestamptz not null, primary key ("consumer", "event_id"));`,
    );

    this.addSql(
      `create table "collections" ("id" uuid not null, "organization_id" uuid not null, "parent_id" uuid null, "title" varchar(50) not null, "description" varchar(100) null, "default_level" text null, "position" varchar(128) collate "C" not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "collections_organization_parent_position_index" on "collections" ("organization_id", "parent_id", "position");`);
    this.addSql(`create index "collections_organization_position_index" on "collections" ("organization_id", "position", "id");`);
    this.addSql(
      `alter table "collections" add constraint "collections_default_level_check" check ("default_level" in ('admin', 'create', 'review', 'edit', 'comment', 'read', 'inherit'));`,
    );

    this.addSql(
      `create table "spaces" ("id" uuid not null, "organization_id" uuid not null, "parent_id" uuid null, "title" varchar(50) not null, "emoji" varchar(50) not null default '', "visibility" text not null default 'private', "edit_mode" text not null default 'live', "default_level" text null, "position" varchar(128) collate "C" not null, "revision_id" varchar(64) null, "comments" int not null default 0, "change_requests" int not null default 0, "change_requests_open" int not null default 0, "change_requests_draft" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "spaces_organization_parent_position_index" on "spaces" ("organization_id", "parent_id", "position");`);
    this.addSql(`create index "spaces_organization_position_index" on "spaces" ("organization_id", "position", "id");`);
    this.addSql(`create index "spaces_deleted_at_index" on "spaces" ("deleted_at");`);
    this.addSql(
      `alter table "spaces" add constraint "spaces_visibility_check" check ("visibility" in ('public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'));`,
    );
    this.addSql(`alter table "spaces" add constraint "spaces_edit_mode_check" check ("edit_mode" in ('live', 'locked'));`);
    this.addSql(
      `alter table "spaces" add constraint "spaces_default_level_check" check ("default_level" in ('admin', 'create', 'review', 'edit', 'comment', 'read', 'inherit'));`,
    );
  }
}
