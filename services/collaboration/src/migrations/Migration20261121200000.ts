import { Migration } from "@mikro-orm/migrations";

/**
 * The collaboration context's tables: change requests (numbered per space; their content is a
 * branch in content) with their contributors, per-space bookkeeping (next number, counters
 * version), comments with their replies and reactions, and the runtime's outbox and
 * processed-event tables. Indexes follow the list filters (scope, then filter, then keyset order).
 */
export class Migration20261121200000 extends Migration {
  override name = "Migration20261121200000";

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
      `create table "change_requests" ("id" uuid not null, "space_id" uuid not null, "organization_id" uuid not null, "number" int not null, "status" text not null, "subject" varchar(100) not null default '', "description" text not null default '', "agent_task_id" varchar(128) null, "created_by" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merged_at" timestamptz null, "merged_revision_id" varchar(64) null, primary key ("id"));`,
    );
    this.addSql(`create index "change_requests_space_status_updated_at_index" on "change_requests" ("space_id", "status", "updated_at", "id");`);
    this.addSql(`create index "change_requests_space_status_created_at_index" on "change_requests" ("space_id", "status", "created_at", "id");`);
    this.addSql(`create index "change_requests_space_creator_index" on "change_requests" ("space_id", "created_by", "status");`);
    this.addSql(`alter table "change_requests" add constraint "change_requests_space_number_unique" unique ("space_id", "number");`);
    this.addSql(`alter table "change_requests" add constraint "change_requests_status_check" check ("status" in ('draft', 'open', 'archived', 'merged'));`);

    this.addSql(
      `create table "change_request_contributors" ("change_request_id" uuid not null, "user_id" uuid not null, "space_id" uuid not null, "first_contributed_at" timestamptz not null, primary key ("change_request_id", "user_id"));`,
    );
    this.addSql(`create index "change_request_contributors_space_user_index" on "change_request_contributors" ("space_id", "user_id");`);

    this.addSql(
      `create table "space_states" ("space_id" uuid not null, "next_number" int not null default 1, "counters_version" bigint not null default '0', primary key ("space_id"));`,
    );

    this.addSql(
      `create table "comments" ("id" uuid not null, "space_id" uuid not null, "change_request_id" uuid null, "organization_id" uuid not null, "page_id" varchar(64) null, "node_id" varchar(255) null, "node_preview" varchar(200) null, "revision_id" varchar(64) null, "page" jsonb null, "author_id" uuid not null, "markdown" text not null, "posted_at" timestamptz not null, "edited_at" timestamptz null, "resolved_at" timestamptz null, "resolved_by" uuid null, "replies_count" int not null default 0, primary key ("id"));`,
    );
    this.addSql(`create index "comments_scope_posted_at_index" on "comments" ("space_id", "change_request_id", "posted_at", "id");`);
    this.addSql(`create index "comments_scope_page_index" on "comments" ("space_id", "change_request_id", "page_id", "posted_at", "id");`);
    this.addSql(`create index "comments_scope_author_index" on "comments" ("space_id", "change_request_id", "author_id", "posted_at", "id");`);
    this.addSql(`create index "comments_scope_resolved_index" on "comments" ("space_id", "change_request_id", "resolved_at", "posted_at", "id");`);

    this.addSql(
      `create table "comment_replies" ("id" uuid not null, "comment_id" uuid not null, "space_id" uuid not null, "change_request_id" uuid null, "organization_id" uuid not null, "author_id" uuid not null, "markdown" text not null, "posted_at" timestamptz not null, "edited_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "comment_replies_comment_posted_at_index" on "comment_replies" ("comment_id", "posted_at", "id");`);
    this.addSql(`create index "comment_replies_scope_posted_at_index" on "comment_replies" ("space_id", "change_request_id", "posted_at");`);

    this.addSql(
      `create table "reactions" ("target_id" uuid not null, "emoji" varchar(50) not null, "user_id" uuid not null, "comment_id" uuid not null, "space_id" uuid not null, "reacted_at" timestamptz not null, primary key ("target_id", "emoji", "user_id"));`,
    );
    this.addSql(`create index "reactions_comment_index" on "reactions" ("comment_id");`);
    this.addSql(`create index "reactions_space_index" on "reactions" ("space_id");`);
  }
}
