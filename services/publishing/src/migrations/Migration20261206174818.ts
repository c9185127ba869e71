import { Migration } from "@mikro-orm/migrations";

/** Site insights: visitors' events counted per site, day, type, site-space, page and rating (site_insight_counts), and the ids of events counted lately (site_insight_receipts). */
export class Migration20261206174818 extends Migration {
  override name = "Migration20261206174818";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "site_insight_counts" ("site_id" uuid not null, "day" timestamptz not null, "event_type" varchar(32) not null, "site_space_id" varchar(64) not null, "page_id" varchar(64) not null, "rating" varchar(8) not null, "organization_id" uuid not null, "space_id" varchar(64) not null, "count" bigint not null, primary key ("site_id", "day", "event_type", "site_space_id", "page_id", "rating"));`,
    );

    this.addSql(`create table "site_insight_receipts" ("event_id" uuid not null, "received_at" timestamptz not null, primary key ("event_id"));`);
    this.addSql(`create index "site_insight_receipts_received_at_index" on "site_insight_receipts" ("received_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "site_insight_counts" cascade;`);
    this.addSql(`drop table if exists "site_insight_receipts" cascade;`);
  }
}
