import { Migration } from "@mikro-orm/migrations";

/**
 * The search index (services/content/src/search): per space, the revision indexed; per page, its
 * result fields and a weighted text-search vector (GIN-indexed); per section, its heading, text and
 * vector. `search_tsvector_agg` concatenates section vectors into the page's (as `||` does), so
 * the text is parsed once.
 */
export class Migration20261121100300 extends Migration {
  override name = "Migration20261121100300";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "search_spaces" ("space_id" uuid not null, "revision_id" varchar(64) not null, "store_id" uuid not null, "root" varchar(32) null, "indexed_at" timestamptz not null, primary key ("space_id"));`,
    );

    this.addSql(
      `create table "search_pages" ("space_id" uuid not null, "page_id" varchar(64) not null, "version_id" varchar(32) not null, "title" varchar(255) not null, "description" text not null default '', "path" text not null, "ancestor_titles" text[] not null default '{}', "tsv" tsvector not null, primary key ("space_id", "page_id"));`,
    );
    // Kept in the row (compressed when it pays): ranking reads every matching page's vector, and
    // fetching each from the TOAST table made a search over 5,000 matches three times slower.
    this.addSql(`alter table "search_pages" alter column "tsv" set storage main;`);
    this.addSql(`create index "search_pages_tsv_index" on "search_pages" using gin ("tsv");`);

    this.addSql(
      `create table "search_sections" ("space_id" uuid not null, "page_id" varchar(64) not null, "position" int not null, "anchor" text not null default '', "title" text not null, "body" text not null, "tsv" tsvector not null, primary key ("space_id", "page_id", "position"));`,
    );

    this.addSql(`create aggregate "search_tsvector_agg"(tsvector) (sfunc = tsvector_concat, stype = tsvector, initcond = '');`);
  }
}
