import { Migration } from "@mikro-orm/migrations";
import { addRuntimeTables } from "@imprint/runtime";

/**
 * The publishing context's tables: sites (basename unique per organization, hostname unique in the
 * installation, visitor-auth signing key and URLs, adaptive-content schema), their sections (path unique in the site) and section groups, and
 * site-spaces (path unique per level, ordered by position, hidden while their space is deleted) and share links (random keys, unique),
 * plus the runtime's tables.
 */
export class Migration20261123210000 extends Migration {
  override name = "Migration20261123210000";

  override up(): void | Promise<void> {
    // The runtime's tables of the time; those it added later come with later migrations.
    addRuntimeTables(this, ["outbox_events", "processed_events", "job_leases"]);

    this.addSql(
      `create table "sites" ("id" uuid not null, "organization_id" uuid not null, "type" text not null, "title" varchar(128) not null, "visibility" text not null, "published" boolean not null default false, "basename" varchar(100) null, "hostname" varchar(512) null, "proxy" varchar(512) null, "adaptive_content_enabled" boolean not null default false, "agents_context" text not null, "default_site_space_id" uuid null, "default_section_id" uuid null, "visitor_auth_key" varchar(64) not null, "visitor_auth_fallback_url" varchar(2048) null, "visitor_auth_logout_url" varchar(2048) null, "adaptive_schema" text null, "adaptive_schema_updated_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "sites_organization_created_at_index" on "sites" ("organization_id", "created_at", "id");`);
    this.addSql(`alter table "sites" add constraint "sites_organization_basename_unique" unique ("organization_id", "basename");`);
    this.addSql(`alter table "sites" add constraint "sites_hostname_unique" unique ("hostname");`);
    this.addSql(
      `alter table "sites" add constraint "sites_type_check" check ("type" in ('basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'));`,
    );
    this.addSql(`alter table "sites" add constraint "sites_visibility_check" check ("visibility" in ('public', 'unlisted', 'share-link', 'visitor-auth'));`);
    this.addSql(`alter table "sites" add constraint "sites_agents_context_check" check ("agents_context" in ('included', 'excluded'));`);

    this.addSql(
      `create table "site_spaces" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "section_id" uuid null, "space_id" uuid not null, "path" varchar(100) not null, "condition" varchar(1024) not null default '', "position" int not null, "space_deleted" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "site_spaces_site_position_index" on "site_spaces" ("site_id", "position", "id");`);
    this.addSql(`create index "site_spaces_space_index" on "site_spaces" ("space_id");`);
    this.addSql(`create index "site_spaces_level_path_index" on "site_spaces" ("site_id", "section_id", "path");`);

    this.addSql(
      `create table "site_sections" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "title" varchar(128) not null, "path" varchar(100) not null, "description" varchar(256) not null default '', "icon" varchar(50) null, "condition" varchar(1024) not null default '', "position" int not null, "section_group_id" uuid null, "default_site_space_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "site_sections_site_position_index" on "site_sections" ("site_id", "position", "id");`);
    this.addSql(`alter table "site_sections" add constraint "site_sections_site_path_unique" unique ("site_id", "path");`);

    this.addSql(
      `create table "site_section_groups" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "title" varchar(100) not null, "icon" varchar(50) null, "position" int not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "site_section_groups_site_position_index" on "site_section_groups" ("site_id", "position", "id");`);

    this.addSql(
      `create table "share_links" ("id" uuid not null, "site_id" uuid not null, "organization_id" uuid not null, "name" varchar(50) not null, "key" varchar(64) not null, "active" boolean not null default true, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "share_links_site_created_at_index" on "share_links" ("site_id", "created_at", "id");`);
    this.addSql(`alter table "share_links" add constraint "share_links_key_unique" unique ("key");`);
  }
}
