import { Migration } from "@mikro-orm/migrations";

/**
 * Links and backlinks (services/content/src/links): the references each page version makes,
 * extracted once per version (versions are immutable and shared across revisions). The key is a
 * foreign key to the version that cascades, so the purge's deletion of a version takes its links
 * along and the purge needs no knowledge of this table.
 */
export class Migration20261121100200 extends Migration {
  override name = "Migration20261121100200";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "page_version_links" ("store_id" uuid not null, "page_version_id" varchar(32) not null, "links" jsonb not null default '[]', primary key ("store_id", "page_version_id"));`,
    );

    this.addSql(
      `alter table "page_version_links" add constraint "page_version_links_store_id_page_version_id_foreign" foreign key ("store_id", "page_version_id") references "page_versions" ("store_id", "id") on delete cascade;`,
    );
  }
}
