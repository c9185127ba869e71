import { Migration } from "@mikro-orm/migrations";

/** Sites' redirects (site_redirects), live and draft, one per source and mode. */
export class Migration20261206052420 extends Migration {
  override name = "Migration20261206052420";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "site_redirects" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "source" varchar(512) not null, "draft" boolean not null default false, "permanent" boolean not null default false, "capture_wildcard" boolean not null default false, "destination_kind" varchar(32) not null, "destination_site_section_id" uuid null, "destination_site_space_id" uuid null, "destination_page_id" varchar(64) null, "destination_url" varchar(2048) null, "automatic" boolean not null default false, "page_move_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz null, "last_changed_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "site_redirects_site_created_at_index" on "site_redirects" ("site_id", "draft", "created_at", "id");`);
    this.addSql(`create index "site_redirects_site_last_changed_at_index" on "site_redirects" ("site_id", "draft", "last_changed_at", "id");`);
    this.addSql(`create index "site_redirects_destination_site_space_index" on "site_redirects" ("destination_site_space_id");`);
    this.addSql(`alter table "site_redirects" add constraint "site_redirects_site_source_draft_unique" unique ("site_id", "source", "draft");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "site_redirects" cascade;`);
  }
}
