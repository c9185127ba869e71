import { Migration } from "@mikro-orm/migrations";

export class Migration20261121043141 extends Migration {
  override name = "Migration20261121043141";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organizations" ("id" uuid not null, "title" varchar(255) not null, "email_domains" text[] not null default '{}', "hostname" varchar(32) null, "type" varchar(32) not null default 'business', "use_case" varchar(64) null, "community_type" varchar(64) null, "default_role" text null, "default_content_site_id" varchar(64) null, "sso" boolean not null default false, "ai" boolean not null default false, "invite_links" boolean not null default true, "plan" varchar(32) not null default 'free', "logo_url" varchar(2048) null, "custom_hostname" varchar(255) null, "trial_status" varchar(32) not null default 'notapplicable', "merge_rules_type" varchar(32) not null default 'none', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "organizations" add constraint "organizations_hostname_unique" unique ("hostname");`);
    this.addSql(
      `alter table "organizations" add constraint "organizations_default_role_check" check ("default_role" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );

    this.addSql(
      `create table "link_invites" ("id" uuid not null, "organization_id" uuid not null, "role" text null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "link_invites_organization_id_index" on "link_invites" ("organization_id");`);
    this.addSql(
      `alter table "link_invites" add constraint "link_invites_role_check" check ("role" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );

    this.addSql(
      `create table "outbox_events" ("id" uuid not null, "sequence" bigserial, "subject" varchar(255) not null, "type" varchar(128) not null, "envelope" jsonb not null, "trace_headers" jsonb null, "created_at" timestamptz not null, "published_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_sequence_unique" unique ("sequence");`);
    this.addSql(`create index "outbox_events_published_at_index" on "outbox_events" ("published_at");`);

    this.addSql(
      `create table "processed_events" ("consumer" varchar(128) not null, "event_id" uuid not null, "processed_at" timestamptz not null, primary key ("consumer", "event_id"));`,
    );

    this.addSql(
      `create table "users" ("id" uuid not null, "email" varchar(320) not null, "display_name" varchar(255) not null, "photo_url" varchar(2048) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "members" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "role" text null, "disabled" boolean not null default false, "sso" boolean not null default false, "joined_at" timestamptz not null, "last_seen_at" timestamptz null, "sort_name" varchar(255) not null, primary key ("id"));`,
    );
    this.addSql(`create index "members_user_id_index" on "members" ("user_id");`);
    this.addSql(`create index "members_organization_joined_at_index" on "members" ("organization_id", "joined_at", "id");`);
    this.addSql(`create index "members_organization_last_seen_at_index" on "members" ("organization_id", "last_seen_at", "id");`);
    this.addSql(`create index "members_organization_sort_name_index" on "members" ("organization_id", "sort_name", "id");`);
    this.addSql(`create index "members_organization_role_index" on "members" ("organization_id", "role");`);
    this.addSql(`alter table "members" add constraint "members_organization_user_unique" unique ("organization_id", "user_id");`);
    this.addSql(`alter table "members" add constraint "members_role_check" check ("role" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`);

    this.addSql(
      `create table "api_tokens" ("id" uuid not null, "user_id" uuid not null, "label" varchar(255) null, "token_hash" varchar(64) not null, "last_four" varchar(4) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "api_tokens_user_id_index" on "api_tokens" ("user_id");`);
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(
      `alter table "link_invites" add constraint "link_invites_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "members" add constraint "members_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "members" add constraint "members_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "api_tokens" add constraint "api_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
  }
}
