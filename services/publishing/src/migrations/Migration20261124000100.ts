import { Migration } from "@mikro-orm/migrations";

/**
 * External links in a site's structure, section groups nested in groups, drafts (sections,
 * groups, site-spaces and links that visitors do not see until they are made live), and a site's
 * version (moving with every change to what it shows).
 */
export class Migration20261124000100 extends Migration {
  override name = "Migration20261124000100";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "site_external_links" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "title" varchar(128) not null, "description" varchar(256) not null default '', "icon" varchar(50) null, "url" varchar(2048) not null, "condition" varchar(1024) not null default '', "section_group_id" uuid null, "position" int not null, "draft" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "site_external_links_site_position_index" on "site_external_links" ("site_id", "position", "id");`);
    this.addSql(`alter table "site_section_groups" add column "parent_group_id" uuid null, add column "draft" boolean not null default false;`);
    this.addSql(`alter table "site_sections" add column "draft" boolean not null default false;`);
    this.addSql(`alter table "site_spaces" add column "draft" boolean not null default false;`);
    this.addSql(`alter table "sites" add column "version" int not null default 0;`);
  }
}
