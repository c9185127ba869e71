import { Migration } from "@mikro-orm/migrations";

/**
 * Site customization (GitBook's SiteCustomizationSettings, stored whole) and site-space overrides
 * of it; site-space paths unique per level in the database too (the root's section is null, so
 * NULLS NOT DISTINCT makes two root site-spaces with one path collide).
 */
export class Migration20261124000000 extends Migration {
  override name = "Migration20261124000000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "sites" add column "customization" text null, add column "customization_updated_at" timestamptz null;`);
    this.addSql(`alter table "site_spaces" add column "customization_override" text null, add column "customization_updated_at" timestamptz null;`);
    this.addSql(`drop index "site_spaces_level_path_index";`);
    this.addSql(`create unique index "site_spaces_level_path_unique" on "site_spaces" ("site_id", "section_id", "path") nulls not distinct;`);
  }
}
