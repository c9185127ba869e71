import { Migration } from "@mikro-orm/migrations";

/**
 * The revision store (services/content/src/revisions, docs/revisions.md): revisions and drafts,
 * and the immutable, content-addressed rows they share: tree nodes, page versions, bodies, file
 * versions and reusable-content versions, each keyed by (store, content hash).
 */
export class Migration20261121100100 extends Migration {
  override name = "Migration20261121100100";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "revisions" ("id" varchar(64) not null, "space_id" uuid not null, "store_id" uuid not null, "parents" text[] not null default '{}', "status" text not null, "root" varchar(32) null, "variables" jsonb not null default '{}', "type" varchar(32) not null default 'edits', "message" text not null default '', "git" jsonb null, "created_by" uuid null, "created_at" timestamptz not null, "committed_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "revisions_space_status_index" on "revisions" ("space_id", "status");`);
    this.addSql(`create index "revisions_store_index" on "revisions" ("store_id");`);
    this.addSql(`alter table "revisions" add constraint "revisions_status_check" check ("status" in ('draft', 'committed'));`);

    this.addSql(`create table "tree_nodes" ("store_id" uuid not null, "id" varchar(32) not null, "data" jsonb not null, primary key ("store_id", "id"));`);

    this.addSql(
      `create table "page_versions" ("store_id" uuid not null, "id" varchar(32) not null, "page_id" varchar(64) not null, "type" varchar(16) not null, "parent_id" varchar(64) null, "position" varchar(128) not null, "slug" varchar(100) not null, "title" varchar(255) not null, "emoji" varchar(50) not null default '', "icon" varchar(50) not null default '', "description" text not null default '', "body_id" varchar(64) null, "hidden" boolean not null default false, "no_index" boolean not null default false, "no_robots_index" boolean not null default false, "layout" jsonb not null, "cover" jsonb null, "variables" jsonb not null default '{}', "href" text null, "git" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("store_id", "id"));`,
    );

    this.addSql(
      `create table "content_bodies" ("store_id" uuid not null, "id" varchar(64) not null, "markdown" text not null, "document" text not null, primary key ("store_id", "id"));`,
    );

    this.addSql(
      `create table "file_versions" ("store_id" uuid not null, "id" varchar(32) not null, "file_id" varchar(64) not null, "name" varchar(255) not null, "content_type" varchar(255) not null, "size" bigint not null, "width" int null, "height" int null, "blob_key" varchar(64) not null, "git" jsonb null, "created_at" timestamptz not null, primary key ("store_id", "id"));`,
    );
    this.addSql(`create index "file_versions_blob_key_index" on "file_versions" ("blob_key");`);

    this.addSql(
      `create table "reusable_content_versions" ("store_id" uuid not null, "id" varchar(32) not null, "reusable_content_id" varchar(64) not null, "title" varchar(255) not null, "body_id" varchar(64) null, "git" jsonb null, primary key ("store_id", "id"));`,
    );
  }
}
